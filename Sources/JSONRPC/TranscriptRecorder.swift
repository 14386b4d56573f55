import JSON

#if canImport(Glibc)
    import Glibc
#endif

/// Writes the session a Session serves as a transcript (`fetchd --record FILE`): what the
/// client sent as `send`, what fetchd wrote as `expect`, one line each, as it happens.
/// A malformed header is recorded as the raw bytes that caused it (`sendBytes`); other framing
/// errors (an oversized message, a foreign charset) only as a comment, so such a recording
/// replays with a difference at the answer.
public final class TranscriptRecorder: SessionTap {
    private let file: JSONLinesFile
    private var wroteFraming = false

    /// Opens (truncating) the file; nil if it cannot be created.
    public init?(path: String) {
        guard let file = JSONLinesFile(path: path) else { return nil }
        self.file = file
    }

    /// Records into `session` from now on, after whatever else already watches it (`--trace`).
    public func attach(to session: Session) {
        let received = session.onReceive
        session.onReceive = { [unowned self] event in
            received?(event)
            writeFramingOnce(session)
            switch event {
            case .message(let bytes): recordSend(bytes)
            case .error(let error):
                let header = session.rejectedHeader
                if !header.isEmpty {
                    line {
                        $0.writeRaw("{\"sendBytes\":")
                        $0.write(string: String(decoding: header, as: UTF8.self))
                        $0.writeRaw("}")
                    }
                } else {
                    line {
                        $0.writeRaw("{\"comment\":")
                        $0.write(string: "framing error: \(error)")
                        $0.writeRaw("}")
                    }
                }
            }
        }
        let wrote = session.onWrite
        session.onWrite = { [unowned self] frame, framing in
            wrote?(frame, framing)
            let body = framing == .ndjson ? frame.contents.dropLast() : frame.contents.drop { $0 != 0x7B && $0 != 0x5B }
            line {
                $0.writeRaw("{\"expect\":")
                $0.bytes += body
                $0.writeRaw("}")
            }
        }
    }

    public func recordExit(_ code: Int32) {
        line {
            $0.writeRaw("{\"exitCode\":")
            $0.write(integer: Int64(code))
            $0.writeRaw("}")
        }
    }

    private func writeFramingOnce(_ session: Session) {
        guard !wroteFraming, let framing = session.framing else { return }
        wroteFraming = true
        line {
            $0.writeRaw("{\"framing\":")
            $0.write(string: framing.rawValue)
            $0.writeRaw("}")
        }
        let limit = session.limits.maxMessageSize
        if limit != FramingLimits.defaultMaxMessageSize {
            line {
                $0.writeRaw("{\"maxMessageSize\":")
                $0.write(integer: Int64(limit))
                $0.writeRaw("}")
            }
        }
    }

    /// A message is recorded as JSON when that reproduces its bytes exactly (compact, in
    /// fetchd's own formatting); otherwise (not JSON, a bare scalar, spaces, escapes, duplicate
    /// keys ...) as its verbatim text, so a replay sends the very same bytes.
    private func recordSend(_ bytes: [UInt8]) {
        if let json = try? JSON.parse(bytes), json.objectValue != nil || json.arrayValue != nil,
            json.serialized == bytes
        {
            line {
                $0.writeRaw("{\"send\":")
                $0.bytes += bytes
                $0.writeRaw("}")
            }
        } else {
            line {
                $0.writeRaw("{\"send\":")
                $0.write(string: String(decoding: bytes, as: UTF8.self))
                $0.writeRaw("}")
            }
        }
    }

    private func line(_ build: (inout JSONWriter) -> Void) { file.line(build) }
}
