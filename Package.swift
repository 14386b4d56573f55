// swift-tools-version:6.0
// fetchd: NSFetchedResultsController as a JSON-RPC backend.
//
// Modules follow the data flow: framing and JSON-RPC (JSONRPC over JSON) on one side, the
// engine (Model, Predicates, Store, Contexts, Controllers over SQLite) on the other, and
// Server translating between the two. The engine never imports JSON or JSONRPC.
import PackageDescription

/// The transport's hot path (one message at a time, single-threaded) skips the runtime
/// exclusivity checks in release builds: they cost about 5% of a trivial request.
let transportRelease: [SwiftSetting] = [
    .unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))
]

/// So do the controllers' trees (one controller's, on one thread): a search or an insert reads
/// a node's arrays several times per level, and those checks were about 9% of a rows-mode
/// cycle of many controllers. Debug builds, which the tests run, keep them.
let controllersRelease = transportRelease

/// And the layers a save goes through (SQLite's statement cache, the store, the contexts, each
/// used by one thread at a time): 61 checks a change, 2% of its instructions.
let engineRelease = transportRelease

let package = Package(
    name: "fetchd",
    products: [
        .executable(name: "fetchd", targets: ["fetchd"]),
        // For the fuzz targets in Fuzz/ (a separate package, built only by `make fuzz`).
        .library(name: "FetchdModules", targets: ["JSON", "JSONRPC", "Model", "Predicates", "Server"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // System libraries.
        .systemLibrary(
            name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(
            name: "CJansson", path: "Sources/CJansson", pkgConfig: "jansson",
            providers: [.apt(["libjansson-dev"])]),
        .systemLibrary(
            name: "CLibPQ", path: "Sources/CLibPQ", pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]),

        // Transport side.
        .target(name: "JSON", dependencies: ["CJansson"], path: "Sources/JSON", swiftSettings: transportRelease),
        .target(
            name: "JSONRPC", dependencies: ["JSON", .product(name: "Logging", package: "swift-log")],
            path: "Sources/JSONRPC", swiftSettings: transportRelease),

        // Engine side.
        .target(
            name: "SQLite", dependencies: ["CSQLite", "CSQLiteWAL"], path: "Sources/SQLite",
            swiftSettings: engineRelease),
        // SQLite's default VFS with a commit's WAL frames written in one call (wal_writes.c).
        // DWARF 4: valgrind 3.19 (Debian 12's; scripts/measure-change-cost.py runs callgrind)
        // gives up on a binary with clang's default DWARF 5.
        .target(
            name: "CSQLiteWAL", dependencies: ["CSQLite"], path: "Sources/CSQLiteWAL",
            cSettings: [.unsafeFlags(["-gdwarf-4"])]),
        // The PostgreSQL client (libpq), for the shared store; knows nothing of the engine.
        .target(name: "Postgres", dependencies: ["CLibPQ"], path: "Sources/Postgres"),
        .target(name: "Model", path: "Sources/Engine/Model"),
        .target(name: "Predicates", dependencies: ["Model", "SQLite"], path: "Sources/Engine/Predicates"),
        .target(
            name: "Store", dependencies: ["Model", "SQLite", "Predicates", "Postgres"], path: "Sources/Engine/Store",
            swiftSettings: engineRelease),
        .target(
            name: "Contexts", dependencies: ["Model", "Predicates", "Store"],
            path: "Sources/Engine/Contexts", swiftSettings: engineRelease),
        .target(
            name: "Controllers", dependencies: ["Model", "Predicates", "Contexts"],
            path: "Sources/Engine/Controllers", swiftSettings: controllersRelease),

        // The translation between the two sides, and the executable.
        .target(
            name: "Server",
            dependencies: [
                "JSON", "JSONRPC", "Model", "Predicates", "Store", "Contexts", "Controllers",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/Server", swiftSettings: transportRelease),
        .executableTarget(
            name: "fetchd",
            dependencies: [
                "Server", "JSONRPC",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/fetchd"),

        // Tests mirror the modules.
        // Helpers every test target may use (a seeded generator, scratch directories).
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "ModelTests", dependencies: ["Model"], path: "Tests/ModelTests"),
        .testTarget(name: "JSONTests", dependencies: ["JSON", "TestSupport"], path: "Tests/JSONTests"),
        .testTarget(name: "JSONRPCTests", dependencies: ["JSONRPC", "JSON"], path: "Tests/JSONRPCTests"),
        .testTarget(
            name: "PredicatesTests", dependencies: ["TestSupport", "Predicates", "Model", "SQLite", "Postgres"],
            path: "Tests/PredicatesTests"),
        .testTarget(
            name: "StoreTests", dependencies: ["TestSupport", "Store", "Model", "SQLite", "Predicates", "Postgres"],
            path: "Tests/StoreTests"),
        .testTarget(
            name: "ContextsTests",
            dependencies: ["TestSupport", "Contexts", "Store", "Model", "Predicates", "Postgres", "SQLite"],
            path: "Tests/ContextsTests"),
        .testTarget(
            name: "ControllersTests",
            dependencies: ["TestSupport", "Controllers", "Contexts", "Store", "Model", "Predicates", "Postgres"],
            path: "Tests/ControllersTests"),
        .testTarget(
            name: "ServerTests",
            dependencies: [
                "TestSupport", "Server", "JSON", "JSONRPC", "SQLite", "Store", "Postgres",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/ServerTests"),
        .testTarget(name: "PostgresTests", dependencies: ["TestSupport", "Postgres"], path: "Tests/PostgresTests"),
        .testTarget(name: "EndToEndTests", dependencies: ["TestSupport", "JSON"], path: "Tests/EndToEndTests"),
    ]
)
