import Foundation
import SegmentsBenchKit
import XCTest

/// The revision a report records is the code that ran: a file not yet added to git is compiled
/// into the binary too.
final class GitRevisionTests: XCTestCase {
    func testAFileNotYetAddedMarksTheRevisionDirty() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bench-git-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        let commit = ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false",
                      "commit", "-q", "--no-verify", "--allow-empty", "-m", "t"]
        for arguments in [["init", "-q"], commit] {
            guard (try? git(arguments, in: directory)) == 0 else { throw XCTSkip("git could not make a repository here") }
        }
        let clean = SuiteRunner.gitRevision(in: directory)
        XCTAssertEqual(clean.count, 40, clean)
        try Data("let x = 1\n".utf8).write(to: directory.appendingPathComponent("New.swift"))
        XCTAssertEqual(SuiteRunner.gitRevision(in: directory), clean + "-dirty")
    }

    private func git(_ arguments: [String], in directory: URL) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git"] + arguments
        process.currentDirectoryURL = directory
        // The machine's own git settings (signing, hooks) stay out of it.
        process.environment = ProcessInfo.processInfo.environment.merging(["GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"]) { $1 }
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}
