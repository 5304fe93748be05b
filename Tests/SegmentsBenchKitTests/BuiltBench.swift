import Foundation
import XCTest

/// The segments-bench that `swift build --build-tests` built beside the tests: next to the test
/// executable on Linux, next to the `.xctest` bundle on macOS (where the process is `xctest`).
enum BuiltBench {
    /// Its path; throws `XCTSkip` when none was built there.
    static func url() throws -> URL {
        let candidates = [URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0])]
            + Bundle.allBundles.map(\.bundleURL).filter { $0.pathExtension == "xctest" }
        for candidate in candidates {
            let bench = candidate.deletingLastPathComponent().appendingPathComponent("segments-bench")
            if FileManager.default.isExecutableFile(atPath: bench.path) { return bench }
        }
        throw XCTSkip("no segments-bench beside the test bundle (\(candidates.map(\.path).joined(separator: ", ")))")
    }
}
