import FuzzDriver
import JSONRPC

/// The framing reader on arbitrary bytes, in each mode, fed at once and then split at points
/// the input itself picks: it must not crash, and the events must not depend on the split.
/// The first byte chooses the mode and the split seed; a small message limit reaches the
/// too-large paths.
@main enum FuzzFramingMain {
    static func main() { runFuzzer { data, size in fuzzFraming(data!, size) } }
}

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzFraming(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 0 else { return 0 }
    let control = data[0]
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let mode: FramingMode = [.auto, .ndjson, .lsp][Int(control % 3)]
    let limit = control & 0x80 != 0 ? 64 : FramingLimits.defaultMaxMessageSize
    let whole = events(bytes, chunks: [bytes.count], mode: mode, limit: limit)
    var seed = UInt64(control) &* 0x9E37_79B9_7F4A_7C15 &+ UInt64(bytes.count)
    var chunks: [Int] = []
    var remaining = bytes.count
    while remaining > 0 {
        seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        let n = min(remaining, Int(seed >> 59) + 1)
        chunks.append(n)
        remaining -= n
    }
    let split = events(bytes, chunks: chunks, mode: mode, limit: limit)
    if whole != split {
        fatalError("framing depends on the reads: \(whole) vs \(split) with chunks \(chunks)")
    }
    return 0
}

private func events(_ bytes: [UInt8], chunks: [Int], mode: FramingMode, limit: Int) -> [String] {
    var decoder = FrameDecoder(mode: mode, limits: FramingLimits(maxMessageSize: limit))
    var out: [String] = []
    var offset = 0
    for n in chunks {
        decoder.feed(Array(bytes[offset..<(offset + n)]))
        offset += n
        while let event = decoder.next() { out.append("\(event) \(decoder.rejectedHeader)") }
    }
    if let event = decoder.finish() { out.append("\(event)") }
    return out
}
