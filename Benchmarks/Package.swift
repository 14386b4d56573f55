// swift-tools-version:6.0
// Baselines for `make bench`: the re-query + diff peers fetchd is measured against.
//
// A separate package so that the product and `make test` never depend on GRDB; only
// scripts/bench.sh builds it (release, scratch path Benchmarks/.build).
import PackageDescription

let package = Package(
    name: "fetchd-benchmarks",
    products: [
        .executable(name: "grdb-baseline", targets: ["GRDBBaseline"]),
        .executable(name: "pg-baseline", targets: ["PGBaseline"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0")
    ],
    targets: [
        .executableTarget(
            name: "GRDBBaseline",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            path: "Sources/GRDBBaseline"),
        // Raw libpq floors for the PostgreSQL store (a copy of the main package's module map).
        .systemLibrary(
            name: "CLibPQ", path: "Sources/CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .executableTarget(name: "PGBaseline", dependencies: ["CLibPQ"], path: "Sources/PGBaseline"),
    ]
)
