// swift-tools-version: 6.2
// libFuzzer targets for every decoder of untrusted bytes. A package of its own: its executable has
// no `main` (libFuzzer's is linked in) and every module is built with sanitizers, so the root
// package's builds never see it. Built and run by `Fuzz/run`; see Fuzz/README.md.
import PackageDescription

let package = Package(
    name: "RealtimeSegmentsFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "RealtimeSegments", path: ".."),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    ],
    targets: [
        .executableTarget(
            name: "SegmentsFuzz",
            dependencies: [
                .product(name: "RealtimeSegments", package: "RealtimeSegments"),
                .product(name: "RealtimeSegmentsHTTP", package: "RealtimeSegments"),
                .product(name: "SegmentsMockServer", package: "RealtimeSegments"),
                .product(name: "Logging", package: "swift-log"),
                "CFuzzerDriver",
            ]
        ),
        .target(name: "CFuzzerDriver"),
    ],
    swiftLanguageModes: [.v6]
)
