// swift-tools-version: 6.2
import Foundation
import PackageDescription

// A path dependency is known by its folder's name: this example lives two folders below the
// RealtimeSegments checkout, whatever that checkout's folder is called.
let harness = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL
    .lastPathComponent.lowercased()

let package = Package(
    name: "CustomScenario",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "custom-bench",
            dependencies: [
                .product(name: "SegmentsBenchCLI", package: harness),
                .product(name: "SegmentsBenchKit", package: harness),
                .product(name: "RealtimeSegments", package: harness),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
