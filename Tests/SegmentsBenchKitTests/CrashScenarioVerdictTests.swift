import Foundation
import XCTest

@testable import SegmentsBenchKit

/// The `crash` scenario's verdict rests on what its children said and how they ended: every line
/// a child printed is read before its state is, and a child that ended before its SIGKILL (it
/// failed, or never got to the point the scenario checks) fails the run instead of passing as a
/// kill that lost nothing.
final class CrashScenarioVerdictTests: XCTestCase {
    /// A script standing in for `segments-bench crash-child`, in a temporary file.
    private func script(_ body: String) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("crash-child-\(UUID().uuidString).sh")
        try ("#!/bin/sh\n" + body).write(to: url, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url.path
    }

    func testEverythingAChildPrintedIsReadOnceItHasExited() throws {
        // Enough lines ahead of the last ones to keep the reader busy past the child's exit.
        let child = try CrashChildProcess(
            executable: try script("seq 1 200000\necho 'cookie c1'\necho 'durable 41'\necho drained\nexit 0\n"), arguments: [])
        XCTAssertEqual(child.waitForExit(seconds: 120), 0)
        XCTAssertEqual(child.state.lastDurable, 41, "the child's last durable line was still in the pipe when its state was read")
        XCTAssertTrue(child.state.drained, "the drainer's `drained` line was still in the pipe when its state was read")
    }

    func testChildrenThatExitBeforeTheirKillFailTheScenario() throws {
        let child = try script("""
            echo "cookie c-$$"
            case "$*" in *--drain*) echo drained; exit 0;; esac
            exit 1

            """)
        var options = BenchOptions()
        options.quick = true
        let result = try CrashScenario(childExecutable: child).run(options, progress: Progress(enabled: false))
        XCTAssertEqual(result.figure("crash.childrenEndedOnTheirOwn")?.value, 20, "\(result.figures)")
        XCTAssertEqual(result.figure("crash.nothingDurable")?.value, 1, "no child reported anything durable")
        XCTAssertTrue(result.figures.contains { $0.gate == .zero && $0.value != 0 },
                      "20 children that exited with status 1 before their SIGKILL passed every gate: \(result.figures)")
    }

    /// A child's lifetime before its SIGKILL counts from when it says it has started: a first
    /// child slower to start than the shortest lifetime drawn (a busy machine) is not taken for
    /// one that never starts.
    func testAFirstChildSlowToStartIsWaitedFor() throws {
        let marker = FileManager.default.temporaryDirectory.appendingPathComponent("crash-slow-\(UUID().uuidString)").path
        addTeardownBlock { try? FileManager.default.removeItem(atPath: marker) }
        let child = try script("""
            if [ ! -e \(marker) ]; then touch \(marker); sleep 1; fi
            echo "cookie c-$$"
            case "$*" in *--drain*) echo drained; exit 0;; esac
            exec sleep 30

            """)
        var options = BenchOptions()
        options.quick = true
        let result = try CrashScenario(childExecutable: child).run(options, progress: Progress(enabled: false))
        XCTAssertEqual(result.figure("crash.childrenEndedOnTheirOwn")?.value, 0, "\(result.figures)")
    }
}
