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
        for arguments in [["init", "-q"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "t"]] {
            XCTAssertEqual(try git(arguments, in: directory), 0)
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
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}
