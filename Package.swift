// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "RealtimeSegments",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11)],
    products: [
        .library(name: "RealtimeSegments", targets: ["RealtimeSegments"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-atomics.git", from: "1.3.0"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    ],
    targets: [
        .target(
            name: "RealtimeSegments",
            dependencies: [
                .product(name: "Atomics", package: "swift-atomics"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "RealtimeSegmentsTests",
            dependencies: ["RealtimeSegments"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
