import FuzzDriver
import JSON

/// The JSON decoder on arbitrary bytes: no crash; where the direct parser answers, jansson
/// gives the same value; what parses serializes to text that parses back to the same value,
/// and serializing that again gives the same bytes.
@main enum FuzzJSONMain {
    static func main() { runFuzzer { data, size in fuzzJSON(data!, size) } }
}

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let raw = UnsafeRawBufferPointer(start: data, count: size)
    if let direct = JSON.parseDirectly(raw) {
        guard let reference = try? JSON.parseWithJansson(raw), reference.serialized == direct.serialized else {
            fatalError(
                "the direct parser read \(direct), jansson \((try? JSON.parseWithJansson(raw)).map { "\($0)" } ?? "an error")"
            )
        }
    }
    guard let value = try? JSON.parse(raw) else { return 0 }
    let text = value.serialized
    guard let again = try? JSON.parse(text) else { fatalError("serialized JSON does not parse: \(text)") }
    if again.serialized != text { fatalError("serialization is not stable: \(text)") }
    return 0
}
