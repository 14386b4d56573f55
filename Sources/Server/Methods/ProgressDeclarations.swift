import JSON
import JSONRPC

/// LSP's work-done progress (protocol.md §2, "Progress"): a long request given a
/// `workDoneToken` is reported as `$/progress` notifications carrying that token, written as
/// the work goes (not held for the answer): one `begin`, any number of `report`, one `end`.
public enum ProgressDeclarations {
    public static let progress = ServerNotification<WorkDoneProgress>(
        "$/progress", "How far a request given a workDoneToken has come: begin, report (at most every 100 ms), end.")
    public static let notifications = [progress.description]

    /// LSP's work-done token, taken by the methods that report progress: `$/progress`
    /// notifications carry it while the request runs.
    public static let workDoneToken = Param<JSON?>.optional(
        "workDoneToken", .types("string", "integer"),
        "Report this request's progress as $/progress notifications carrying this token (begin, report, end) before its answer."
    )
}

public struct WorkDoneProgress: NotificationPayload {
    public enum Kind: String { case begin, report, end }

    public static let params: [ParamSpec] = [
        .required("token", .types("string", "integer"), "The request's workDoneToken."),
        .required(
            "value",
            .object(
                [
                    ("kind", .strings(["begin", "report", "end"])), ("title", .string), ("message", .string),
                    ("percentage", .integer),
                ], required: ["kind"], closed: true),
            "begin has the title (the method) and a message; report a message and, where the size is known, the percentage of the step (0-100); end a message."
        ),
    ]

    public let token: JSON
    public let kind: Kind
    public var title: String?
    public var message: String?
    public var percentage: Int?

    public var json: JSON {
        var value: JSONObject = ["kind": .string(kind.rawValue)]
        if let title { value["title"] = .string(title) }
        if let message { value["message"] = .string(message) }
        if let percentage { value["percentage"] = .integer(Int64(percentage)) }
        return .object(["token": token, "value": .object(value)])
    }
}
