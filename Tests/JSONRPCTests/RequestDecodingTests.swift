import JSON
import JSONRPC
import Testing

@Suite struct RequestDecodingTests {
    func incoming(_ text: String) throws -> IncomingMessage { IncomingMessage(try JSON.parse(text)) }

    @Test func validRequestsAndNotifications() throws {
        #expect(
            try incoming(#"{"jsonrpc":"2.0","method":"m","params":{"a":1},"id":7}"#)
                == .request(Request(method: "m", params: .byName(["a": 1]), id: .integer(7))))
        #expect(
            try incoming(#"{"jsonrpc":"2.0","method":"m","params":[1],"id":"x"}"#)
                == .request(Request(method: "m", params: .byPosition([1]), id: .string("x"))))
        #expect(
            try incoming(#"{"jsonrpc":"2.0","method":"m","params":null}"#)
                == .request(Request(method: "m")))
        #expect(
            try incoming(#"{"jsonrpc":"2.0","method":"m","id":null,"extra":1}"#)
                == .request(Request(method: "m", id: .null)))
        #expect(
            try incoming(#"{"jsonrpc":"2.0","method":"m","id":1.5}"#)
                == .request(Request(method: "m", id: .number(1.5))))
    }

    @Test func invalidRequestsEchoAWellTypedIdElseNull() throws {
        func check(_ text: String, id: RequestID) throws {
            guard case .invalid(let error, let got) = try incoming(text) else {
                Issue.record("\(text) was accepted")
                return
            }
            #expect(error.code == -32600)
            #expect(got == id, "\(text)")
        }
        try check(#"{"jsonrpc":"2.0","method":"m","id":true}"#, id: .null)
        try check(#"{"jsonrpc":"2.0","method":"m","id":{}}"#, id: .null)
        try check(#"{"jsonrpc":"2.0","method":"m","id":[]}"#, id: .null)
        try check(#"{"jsonrpc":"2.1","method":"m","id":1}"#, id: .integer(1))
        try check(#"{"jsonrpc":2.0,"method":"m","id":1}"#, id: .integer(1))
        try check(#"{"method":"m","id":"a"}"#, id: .string("a"))
        try check(#"{"jsonrpc":"2.0","id":1}"#, id: .integer(1))
        try check(#"{"jsonrpc":"2.0","Method":"m","id":1}"#, id: .integer(1))
        try check(#"{"jsonrpc":"2.0","method":1,"params":"bar"}"#, id: .null)
        try check(#"{"jsonrpc":"2.0","method":"m","params":"bar","id":3}"#, id: .integer(3))
        try check(#"{"jsonrpc":"2.0","method":"m","params":42}"#, id: .null)
        try check("42", id: .null)
    }

    @Test func responsesFromTheClientAreRecognised() throws {
        #expect(try incoming(#"{"jsonrpc":"2.0","result":1,"id":"s-1"}"#) == .response(id: .string("s-1")))
    }
}
