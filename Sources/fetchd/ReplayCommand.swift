import ArgumentParser
import JSONRPC
import Server

#if canImport(Glibc)
    import Glibc
#endif

/// `fetchd replay FILE`: replays a transcript against a fresh in-process server; prints the
/// first difference and exits 1, or prints nothing and exits 0.
struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay a transcript against a fresh server; print the first difference.")

    @Argument(help: "A transcript (JSON Lines).")
    var file: String

    func run() throws {
        MallocTuning.apply()
        guard let bytes = FetchdCommand.readFile(file) else {
            throw ValidationError("cannot read \(file)")
        }
        let transcript: Transcript
        do {
            transcript = try Transcript(parsing: bytes)
        } catch {
            throw ValidationError("\(file): \(error)")
        }
        if let difference = TranscriptReplay.run(transcript) {
            print("\(file): \(difference)")
            throw ExitCode(1)
        }
    }
}
