// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "RealtimeSegments",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "RealtimeSegments", targets: ["RealtimeSegments"]),
        .library(name: "RealtimeSegmentsHTTP", targets: ["RealtimeSegmentsHTTP"]),
        .library(name: "RealtimeSegmentsTesting", targets: ["RealtimeSegmentsTesting"]),
        .library(name: "SegmentsMockServer", targets: ["SegmentsMockServer"]),
        .library(name: "SegmentsBenchKit", targets: ["SegmentsBenchKit"]),
        .library(name: "SegmentsBenchCLI", targets: ["SegmentsBenchCLI"]),
        .executable(name: "segments-bench", targets: ["segments-bench"]),
    ],
    // Opt-in OTLP/HTTP export of the harness's live metrics (`segments-bench run --otlp-endpoint`):
    // `swift build -c release --traits OTLP`. Off by default: swift-otel is a long cold build.
    traits: [.trait(name: "OTLP", description: "OTLP/HTTP export of segments-bench's live metrics through swift-otel")],
    dependencies: [
        .package(url: "https://github.com/apple/swift-atomics.git", from: "1.3.0"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift.git", from: "0.2.0"),
        .package(url: "https://github.com/OpenCombine/OpenCombine.git", from: "0.14.0"),
        .package(url: "https://github.com/GraphQLSwift/GraphQL.git", from: "4.3.0"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
    ],
    targets: [
        .target(
            name: "RealtimeSegments",
            dependencies: [
                .product(name: "Atomics", package: "swift-atomics"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
                "SegmentsCPUHints",
            ]
        ),
        // One CPU hint Swift cannot spell (a prefetch), for the ingestion ring.
        .target(name: "SegmentsCPUHints"),
        // The HTTP transport: its own module so that apps bringing their own transport do not link NIO.
        .target(
            name: "RealtimeSegmentsHTTP",
            dependencies: [
                "RealtimeSegments",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // What an app's tests use: the manual clock, the in-memory transport, the waits for idle.
        .target(name: "RealtimeSegmentsTesting", dependencies: ["RealtimeSegments"]),
        // The in-process mock segments backend (in-memory and HTTP on loopback); never linked by apps.
        .target(
            name: "SegmentsMockServer",
            dependencies: [
                "RealtimeSegments",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "GraphQL", package: "GraphQL"),
            ]
        ),
        // jemalloc's statistics, looked up at run time: the harness builds without jemalloc and
        // reports allocation counts only where the library is present (bench only, never in apps).
        .target(name: "CJemalloc", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        // The system zlib, for the deflate-compressed histograms of HdrHistogram interval logs (bench only).
        .systemLibrary(name: "CSegmentsZlib"),
        // The harness machinery: scenarios, recorders, reports, the regression gate.
        .target(
            name: "SegmentsBenchKit",
            dependencies: [
                "RealtimeSegments", "RealtimeSegmentsHTTP", "RealtimeSegmentsTesting", "SegmentsMockServer", "CJemalloc",
                "SegmentsCPUHints", "CSegmentsZlib",
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "OpenCombine", package: "OpenCombine"),
                .product(name: "Atomics", package: "swift-atomics"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // The harness's command line over a scenario registry, for segments-bench and for a
        // package's own benchmark executable.
        .target(
            name: "SegmentsBenchCLI",
            dependencies: [
                "SegmentsBenchKit", "SegmentsMockServer", "RealtimeSegments",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "OTel", package: "swift-otel", condition: .when(traits: ["OTLP"])),
                .product(name: "CoreMetrics", package: "swift-metrics", condition: .when(traits: ["OTLP"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["OTLP"])),
            ]
        ),
        .executableTarget(
            name: "segments-bench",
            dependencies: ["SegmentsBenchCLI", "SegmentsBenchKit"],
            path: "Benchmarks/SegmentsBench"
        ),
        .testTarget(
            name: "SegmentsBenchKitTests",
            dependencies: [
                "SegmentsBenchKit", "SegmentsBenchCLI", "CSegmentsZlib",
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ]
        ),
        .testTarget(
            name: "RealtimeSegmentsTests",
            dependencies: [
                "RealtimeSegments", "RealtimeSegmentsTesting", "SegmentsCPUHints",
                .product(name: "Atomics", package: "swift-atomics"),
            ]
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "RealtimeSegments", "RealtimeSegmentsHTTP", "RealtimeSegmentsTesting", "SegmentsMockServer",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "SegmentsMockServerTests",
            dependencies: [
                "SegmentsMockServer", "RealtimeSegments",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),

    ],
    swiftLanguageModes: [.v6]
)
