import ArgumentParser
import Server

/// `--watch`, one group shared by the server and `fetchd watch` (like `StoreOptions`: an option
/// of the root command that a subcommand declares again gets its value through the same group).
struct WatchOptions: ParsableArguments {
    @Option(
        help: """
            Merge other processes' commits as they happen: off (only on request: \
            store/checkExternalChanges, or for watch a message on stdin), poll (every 50 ms) or auto \
            (inotify on a file store, else poll).
            """)
    var watch: WatchMode = .auto
}

extension WatchMode: ExpressibleByArgument {}
