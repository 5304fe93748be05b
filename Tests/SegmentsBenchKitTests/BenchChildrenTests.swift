import Foundation
import XCTest

@testable import SegmentsBenchKit

/// `compare` and `calibrate` run builds as child processes: when the command itself is told to
/// end (Ctrl-C, a CI job's timeout), its runs end with it instead of running on unowned, loading
/// the machine the next measurement uses.
final class BenchChildrenTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = try CompareFixtures.temporaryDirectory()
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    /// A build that never finishes on its own: records its pid, then sleeps in place of the shell.
    private func sleepingBinary() throws -> (BenchBinary, pidFile: URL) {
        let script = directory.appendingPathComponent("sleeper")
        let pidFile = directory.appendingPathComponent("sleeper.pid")
        try "#!/bin/sh\necho $$ > '\(pidFile.path)'\nexec sleep 600\n".write(to: script, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        return (BenchBinary(path: script.path, timeout: 900), pidFile)
    }

    func testEndingTheChildrenEndsARunningBuildAndItsRunFails() throws {
        let children = BenchChildren()
        let (binary, pidFile) = try sleepingBinary()
        let ended = DispatchSemaphore(value: 0)
        let failure = LockedBox<(any Error)?>(nil)
        let runDirectory = directory.appendingPathComponent("run")
        Thread.detachNewThread {
            do {
                _ = try binary.run(scenario: "fake", quick: true, in: runDirectory, children: children)
            } catch {
                failure.withLock { $0 = error }
            }
            ended.signal()
        }
        let deadline = Date().addingTimeInterval(10)
        while children.count == 0 || !FileManager.default.fileExists(atPath: pidFile.path), Date() < deadline {
            usleep(10_000)
        }
        XCTAssertEqual(children.count, 1, "the running build is registered")
        let pid = try XCTUnwrap(pid_t(String(contentsOf: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        children.endAll()
        XCTAssertEqual(ended.wait(timeout: .now() + 10), .success, "the run still waits for its build")
        XCTAssertEqual(kill(pid, 0), -1, "the build still runs")
        XCTAssertEqual(errno, ESRCH)
        XCTAssertEqual(children.count, 0)
        XCTAssertEqual(failure.withLock { $0 } as? CompareError, .interrupted)
    }

    func testABuildStartedAfterTheEndIsRefusedAndEnded() throws {
        let children = BenchChildren()
        children.endAll()
        let (binary, pidFile) = try sleepingBinary()
        XCTAssertThrowsError(try binary.run(scenario: "fake", quick: true, in: directory.appendingPathComponent("run"), children: children)) {
            XCTAssertEqual($0 as? CompareError, .interrupted)
        }
        XCTAssertEqual(children.count, 0)
        if let text = try? String(contentsOf: pidFile, encoding: .utf8), let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)) {
            XCTAssertEqual(kill(pid, 0), -1, "a build that started anyway still runs")
        }
    }
}
