@testable import SegmentsBenchKit
import XCTest

/// The counted child's heap at the start of its loop decides which paths the C allocator takes
/// on every iteration, and the environment it starts with is part of that heap: the same build
/// counted `decode + diff` at 22,951, 23,002 and 23,008 instructions per operation with the same
/// variables in a different order. So the child gets the same variables, in the same order,
/// whatever the bench's own environment holds and however its dictionary orders it.
final class CostProbeEnvironmentTests: XCTestCase {
    private func childEnvironment(_ parent: [String: String]) throws -> String {
        let process = CostProbe.childProcess(running: "/usr/bin/env", [], parentEnvironment: parent)
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        return String(decoding: output, as: UTF8.self)
    }

    func testTheChildsEnvironmentDoesNotDependOnTheBenchs() throws {
        var first: [String: String] = ["PATH": "/usr/bin:/bin", "HOME": "/root"]
        var second = first
        for index in 0..<40 { first["APP_VARIABLE_\(index)"] = String(index) }
        for index in (0..<7).reversed() { second["OTHER_\(index)"] = String(repeating: "x", count: index) }
        second["LD_PRELOAD"] = "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"
        second["MALLOC_CONF"] = "narenas:1"
        let counted = try childEnvironment(first)
        XCTAssertEqual(counted, try childEnvironment(second), "the counted child's environment follows the bench's")
        // Exactly these, in this order: not the order of a dictionary in this process.
        XCTAssertEqual(counted, CostProbe.childEnvironment.map { $0 + "\n" }.joined())
    }

    /// A relocated valgrind's `VALGRIND_LIB`, a runtime's `LD_LIBRARY_PATH` and `TMPDIR` are kept,
    /// after the fixed variables and in one order.
    func testTheVariablesAValgrindOrARuntimeNeedsAreKeptInOneOrder() throws {
        let parent = ["TMPDIR": "/tmp/t", "VALGRIND_LIB": "/opt/valgrind/libexec/valgrind", "HOME": "/root", "LD_LIBRARY_PATH": "/opt/swift/lib"]
        XCTAssertEqual(
            try childEnvironment(parent),
            (CostProbe.childEnvironment + ["VALGRIND_LIB=/opt/valgrind/libexec/valgrind", "LD_LIBRARY_PATH=/opt/swift/lib", "TMPDIR=/tmp/t"])
                .map { $0 + "\n" }.joined())
    }
}
