// swift-tools-version: 6.2
// Micro benchmarks of the engine's hot paths (ordo-one/benchmark). A package of its own so that the
// root package's `swift test` and sanitizer builds never build the benchmark tool or the malloc
// interposer. Run from this directory: `swift package benchmark`.
import PackageDescription

let package = Package(
    name: "RealtimeSegmentsMicroBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "RealtimeSegments", path: "../.."),
        // On Linux with Swift 6.3, 1.38.1 resolves only with the malloc interposer trait alone
        // (its default RuntimeInterposer trait pulls a package this environment does not have).
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "HotPath",
            dependencies: [
                .product(name: "RealtimeSegments", package: "RealtimeSegments"),
                .product(name: "RealtimeSegmentsTesting", package: "RealtimeSegments"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/HotPath",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
