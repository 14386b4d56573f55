// swift-tools-version:6.0
// libFuzzer targets for fetchd's hostile-input surfaces: the framing reader, the JSON decoder,
// the predicate parser, and every valid request answered with its id. A separate package so
// the normal build never sees the fuzzer flags; `make fuzz` / `make test-fuzz` build and run it (scripts/fuzz.sh).
import PackageDescription

let fuzzer: [SwiftSetting] = [.unsafeFlags(["-sanitize=fuzzer,address"])]
let fuzzerLink: [LinkerSetting] = [.unsafeFlags(["-sanitize=fuzzer,address", "-use-ld=lld"])]

let package = Package(
    name: "fetchd-fuzz",
    dependencies: [.package(name: "fetchd", path: "..")],
    targets: [
        .target(name: "FuzzDriver", swiftSettings: fuzzer),
        .executableTarget(
            name: "FuzzFraming", dependencies: ["FuzzDriver", .product(name: "FetchdModules", package: "fetchd")],
            swiftSettings: fuzzer, linkerSettings: fuzzerLink),
        .executableTarget(
            name: "FuzzJSON", dependencies: ["FuzzDriver", .product(name: "FetchdModules", package: "fetchd")],
            swiftSettings: fuzzer, linkerSettings: fuzzerLink),
        .executableTarget(
            name: "FuzzAnswers", dependencies: ["FuzzDriver", .product(name: "FetchdModules", package: "fetchd")],
            swiftSettings: fuzzer, linkerSettings: fuzzerLink),
        .executableTarget(
            name: "FuzzPredicate", dependencies: ["FuzzDriver", .product(name: "FetchdModules", package: "fetchd")],
            swiftSettings: fuzzer, linkerSettings: fuzzerLink),
    ]
)
