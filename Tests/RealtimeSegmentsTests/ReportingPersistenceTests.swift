import Foundation
@testable import RealtimeSegments
import Logging
import RealtimeSegmentsTesting
import Synchronization
import XCTest

/// SPEC §10: reporting segments are persisted per visitor, crash-safe, and restored at start.
final class ReportingPersistenceTests: XCTestCase {
    private var directory: URL!

    override func setUp() {
        directory = temporaryDirectory()
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: directory)
    }

    private var reportingDirectory: URL { directory.appendingPathComponent("reporting-segments") }

    /// Puts a file where the reporting directory goes: creating or reading the directory fails.
    private func blockReportingDirectory() throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: reportingDirectory.path, contents: Data("x".utf8)))
    }

    /// A client configuration on the test's directory with an in-memory transport.
    private func configurationOnTheDirectory() -> SegmentsConfiguration {
        var configuration = SegmentsConfiguration(
            projectToken: Fixture.token, authorization: .token("secret"), transport: InMemorySegmentsTransport(expectedProjectToken: Fixture.token))
        configuration.stateDirectory = directory
        return configuration
    }

    /// A hook that, the first time it runs, signals `entered` and waits for `gate`; later calls
    /// pass straight through.
    private func holdingTheFirstCall(entered: DispatchSemaphore, gate: DispatchSemaphore) -> @Sendable () -> Void {
        let first = Mutex(true)
        return {
            guard first.withLock({ isFirst in defer { isFirst = false }; return isFirst }) else { return }
            entered.signal()
            gate.wait()
        }
    }

    private func persist(_ segments: [String: ReportingSegments]) throws {
        let fixture = Fixture(stateDirectory: directory)
        for (visitorId, value) in segments {
            let visitor = try fixture.client.reportingVisitor(visitorId: visitorId)
            visitor.setDefaultSegments(ReportingSegmentKey.allCases.reduce(into: [:]) { $0[$1.rawValue] = value[$1] })
            visitor.setCustomSegments(value.customSegments)
        }
        fixture.client.stop()
    }

    func testSegmentsAreRestoredByANewClientOnTheSameDirectory() throws {
        let saved = ReportingSegments(country: "DE", visitorType: "returning", customSegments: ["vip", "vip"])
        try persist(["v-1": saved])
        let fixture = Fixture(stateDirectory: directory)
        fixture.client.start()
        XCTAssertEqual(fixture.client.reporting.visitorCount, 1)
        XCTAssertEqual(try fixture.client.reportingVisitor(visitorId: "v-1").segments, saved)
    }

    func testStartRestoresThePersistedVisitorsBeforeAnyoneAsks() throws {
        try persist(["v-1": ReportingSegments(country: "DE")])
        let fixture = Fixture(stateDirectory: directory)
        XCTAssertFalse(fixture.client.reporting.hasRestored)
        fixture.client.start()
        XCTAssertTrue(fixture.client.reporting.hasRestored, "restored by start(), not only on first use")
        XCTAssertTrue(fixture.logs.contains("Segments: Restored reporting segments of 1 visitors"))
    }

    func testFlushMakesChangesDurableWithoutStop() throws {
        let writer = Fixture(stateDirectory: directory)
        try writer.client.reportingVisitor(visitorId: "v-1").setDefaultSegments(["source": "ads"])
        writer.client.reporting.flush()
        writer.client.releaseStateDirectoryForTesting()  // as the kernel does at a crash
        let reader = Fixture(stateDirectory: directory)
        XCTAssertEqual(try reader.client.reportingVisitor(visitorId: "v-1").segments, ReportingSegments(source: "ads"))
    }

    func testAFailedWriteIsLoggedAndTheVisitorIsWrittenByTheNextFlush() throws {
        try blockReportingDirectory()
        let writer = Fixture(stateDirectory: directory)
        try writer.client.reportingVisitor(visitorId: "v-1").setDefaultSegments(["source": "ads"])
        writer.client.reporting.flush()
        // The setter's own background write fails too; each failure is one line (the background
        // write's is logged off the persistence queue, perhaps after the flush's).
        waitUntil(timeout: 10) { writer.logs.count(prefix: "Segments: Cannot create reporting segments directory") > 0 }
        XCTAssertGreaterThanOrEqual(writer.logs.count(prefix: "Segments: Cannot create reporting segments directory"), 1)
        XCTAssertEqual(writer.client.reporting.persistedWrites.files, 0)

        try FileManager.default.removeItem(at: reportingDirectory)
        writer.client.reporting.flush()
        XCTAssertEqual(writer.client.reporting.persistedWrites.files, 1, "the visitor was kept and written by the next flush")
        writer.client.releaseStateDirectoryForTesting()
        let reader = Fixture(stateDirectory: directory)
        XCTAssertEqual(try reader.client.reportingVisitor(visitorId: "v-1").segments, ReportingSegments(source: "ads"))
    }

    func testADirectoryThatCannotBeReadIsLoggedAtRestore() throws {
        try blockReportingDirectory()
        let fixture = Fixture(stateDirectory: directory)
        fixture.client.start()
        XCTAssertEqual(fixture.client.reporting.visitorCount, 0)
        XCTAssertEqual(fixture.logs.count(prefix: "Segments: Cannot read reporting segments directory"), 1)
    }

    func testRestoredSegmentsKeepMergingAndAppending() throws {
        try persist(["v-1": ReportingSegments(country: "DE", customSegments: ["a"])])
        let fixture = Fixture(stateDirectory: directory)
        let visitor = try fixture.client.reportingVisitor(visitorId: "v-1")
        visitor.setDefaultSegments(["browser": "firefox"])
        visitor.setCustomSegments(["b"])
        XCTAssertEqual(visitor.segments, ReportingSegments(country: "DE", browser: "firefox", customSegments: ["a", "b"]))
    }

    func testEachVisitorIsOneFileWithASafeDistinctName() throws {
        try persist(["a/b": ReportingSegments(country: "1"), "a%2Fb": ReportingSegments(country: "2"), "..": ReportingSegments(country: "3")])
        let names = try FileManager.default.contentsOfDirectory(atPath: reportingDirectory.path).sorted()
        XCTAssertEqual(names, ["visitor-%2E%2E.json", "visitor-a%252%46b.json", "visitor-a%2Fb.json"])
        let fixture = Fixture(stateDirectory: directory)
        XCTAssertEqual(try fixture.client.reportingVisitor(visitorId: "a/b").segments.country, "1")
        XCTAssertEqual(try fixture.client.reportingVisitor(visitorId: "a%2Fb").segments.country, "2")
        XCTAssertEqual(try fixture.client.reportingVisitor(visitorId: "..").segments.country, "3")
    }

    /// Apple platforms' default volumes ignore case in file names: ids that differ only in case
    /// must not share a file there, or one visitor's writes replace the other's.
    func testVisitorIdsThatDifferOnlyInCaseGetNamesThatDifferWithoutCase() throws {
        XCTAssertNotEqual(ReportingFileStore.escapedName("abc").lowercased(), ReportingFileStore.escapedName("ABC").lowercased(),
                          "abc and ABC would share one file on a case-insensitive volume")
        try persist(["abc": ReportingSegments(country: "DE"), "ABC": ReportingSegments(country: "FR")])
        let names = try FileManager.default.contentsOfDirectory(atPath: reportingDirectory.path)
        XCTAssertEqual(Set(names.map { $0.lowercased() }).count, 2, "two files, distinct whatever the case: \(names)")
    }

    /// Swift takes an id's two Unicode spellings (é precomposed, or e and a combining accent) for
    /// one visitor, so the file name must not tell them apart: each spelling had a file of its
    /// own, and at the next start the one whose name sorts first won, whichever was written last.
    func testTheTwoSpellingsOfAnAccentedIdShareOneFile() throws {
        try persist(["caf\u{E9}": ReportingSegments(country: "DE")])
        do {
            let fixture = Fixture(stateDirectory: directory)
            try fixture.client.reportingVisitor(visitorId: "cafe\u{301}").setDefaultSegments(["country": "FR"])
            fixture.client.stop()
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: reportingDirectory.path)
        XCTAssertEqual(names.filter { $0.hasPrefix("visitor-") && $0.hasSuffix(".json") }.count, 1, "\(names)")
        let restored = Fixture(stateDirectory: directory)
        XCTAssertEqual(try restored.client.reportingVisitor(visitorId: "caf\u{E9}").segments.country, "FR")
    }

    /// An earlier version wrote each spelling of an accented id to a file of its own. Of two such
    /// files the one written last is restored, whichever name sorts first, and takes the name
    /// this version gives the id; the other is moved aside.
    func testOfTwoSpellingsAnEarlierVersionWroteTheNewerIsRestored() throws {
        try FileManager.default.createDirectory(at: reportingDirectory, withIntermediateDirectories: true)
        let composed = reportingDirectory.appendingPathComponent("visitor-caf%C3%A9.json")
        let decomposed = reportingDirectory.appendingPathComponent("visitor-cafe%CC%81.json")
        try Data(#"{"segments":{"country":"OLD","customSegments":[]},"version":1,"visitorId":"caf\#u{E9}"}"#.utf8).write(to: composed)
        try Data(#"{"segments":{"country":"NEW","customSegments":[]},"version":1,"visitorId":"cafe\#u{301}"}"#.utf8).write(to: decomposed)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3_600)], ofItemAtPath: composed.path)
        let fixture = Fixture(stateDirectory: directory)
        XCTAssertEqual(try fixture.client.reportingVisitor(visitorId: "caf\u{E9}").segments.country, "NEW")
        fixture.client.stop()
        let names = try FileManager.default.contentsOfDirectory(atPath: reportingDirectory.path)
        XCTAssertTrue(names.contains("visitor-caf%C3%A9.json"), "\(names)")
        XCTAssertFalse(names.contains("visitor-cafe%CC%81.json"), "\(names)")
        XCTAssertTrue(names.contains { $0.hasPrefix("visitor-caf%C3%A9.json.skipped-") }, "the older copy is kept aside: \(names)")
        let restored = Fixture(stateDirectory: directory)
        XCTAssertEqual(try restored.client.reportingVisitor(visitorId: "cafe\u{301}").segments.country, "NEW")
    }

    /// A file written under the name an earlier version gave an id with capitals is restored, and
    /// renamed to the id's name now, so the visitor's next write does not leave a second file.
    func testAFileUnderAnEarlierNameIsRestoredAndRenamed() throws {
        try FileManager.default.createDirectory(at: reportingDirectory, withIntermediateDirectories: true)
        try Data(#"{"segments":{"country":"DE","customSegments":[]},"version":1,"visitorId":"ABC"}"#.utf8)
            .write(to: reportingDirectory.appendingPathComponent("visitor-ABC.json"))
        let fixture = Fixture(stateDirectory: directory)
        let visitor = try fixture.client.reportingVisitor(visitorId: "ABC")
        XCTAssertEqual(visitor.segments.country, "DE")
        visitor.setCustomSegments(["vip"])
        fixture.client.reporting.flush()
        let names = try FileManager.default.contentsOfDirectory(atPath: reportingDirectory.path)
        XCTAssertEqual(names, ["visitor-\(ReportingFileStore.escapedName("ABC")).json"], "one file for the visitor, under its name now")
        fixture.client.releaseStateDirectoryForTesting()
        let restored = Fixture(stateDirectory: directory)
        XCTAssertEqual(try restored.client.reportingVisitor(visitorId: "ABC").segments,
                       ReportingSegments(country: "DE", customSegments: ["vip"]))
    }

    /// A visitor's file under its current name is what the visitor last wrote; a copy of the
    /// same visitor under another name (an earlier version's name, a rename that failed, a copy
    /// made by hand) never replaces it, whatever order the directory lists them in, and is moved
    /// aside rather than left to compete.
    func testACopyUnderAnotherNameNeverReplacesTheVisitorsCurrentFile() throws {
        try persist(["v": ReportingSegments(country: "NEW")])
        for legacyName in ["visitor-0LEGACY.json", "visitor-zLEGACY.json"] {
            try Data(#"{"segments":{"country":"OLD","customSegments":[]},"version":1,"visitorId":"v"}"#.utf8)
                .write(to: reportingDirectory.appendingPathComponent(legacyName))
            let names = try assertVisitorVRestoresWithCountryNEWTwice(legacyName)
            XCTAssertFalse(names.contains(legacyName), "the copy is moved aside: \(names)")
            XCTAssertTrue(names.contains { $0.hasPrefix("\(legacyName).skipped-") }, "and kept: \(names)")
        }
    }

    /// Two files of one visitor, neither under its current name: the one written last is restored
    /// and takes the name; the other is moved aside.
    func testOfTwoCopiesUnderEarlierNamesTheNewerOneIsRestored() throws {
        try FileManager.default.createDirectory(at: reportingDirectory, withIntermediateDirectories: true)
        let older = reportingDirectory.appendingPathComponent("visitor-zOLDER.json")
        let newer = reportingDirectory.appendingPathComponent("visitor-0NEWER.json")
        try Data(#"{"segments":{"country":"OLD","customSegments":[]},"version":1,"visitorId":"v"}"#.utf8).write(to: older)
        try Data(#"{"segments":{"country":"NEW","customSegments":[]},"version":1,"visitorId":"v"}"#.utf8).write(to: newer)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3_600)], ofItemAtPath: older.path)
        let names = try assertVisitorVRestoresWithCountryNEWTwice("two earlier names")
        XCTAssertTrue(names.contains { $0.hasPrefix("visitor-zOLDER.json.skipped-") }, "\(names)")
    }

    /// Restores visitor "v" twice, each time in a new client that then stops, asserting that its
    /// country is "NEW" both times and that its file is under its name now; the directory's names.
    private func assertVisitorVRestoresWithCountryNEWTwice(
        _ setting: String, file: StaticString = #filePath, line: UInt = #line
    ) throws -> [String] {
        for restore in ["restored", "restored again"] {
            let fixture = Fixture(stateDirectory: directory)
            XCTAssertEqual(try fixture.client.reportingVisitor(visitorId: "v").segments.country, "NEW",
                           "\(setting), \(restore)", file: file, line: line)
            fixture.client.stop()
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: reportingDirectory.path)
        XCTAssertTrue(names.contains("visitor-\(ReportingFileStore.escapedName("v")).json"), "\(names)", file: file, line: line)
        return names
    }

    /// A directory holds one project's state even before any engine wrote a state file there: a
    /// client of another project leaves its reporting segments alone.
    func testAReportingOnlyDirectoryOfAnotherProjectIsLeftToThatProject() throws {
        let first = Fixture(stateDirectory: directory) { $0.projectToken = "project-a" }
        try first.client.reportingVisitor(visitorId: "v-1").setDefaultSegments(["country": "DE"])
        first.client.stop()  // never started: no state file is written
        let second = Fixture(stateDirectory: directory, directoryMayBeRefused: true)
        XCTAssertNil(try second.client.reportingVisitor(visitorId: "v-1").segments.country, "project-a's visitor was taken over")
        XCTAssertEqual(second.logs.count(prefix: "Segments: State directory \(directory.path) belongs to another project"), 1)
        second.client.stop()
        let againA = Fixture(stateDirectory: directory) { $0.projectToken = "project-a" }
        XCTAssertEqual(try againA.client.reportingVisitor(visitorId: "v-1").segments.country, "DE")
    }

    /// Once stopped, a client no longer holds its state directory: its reporting changes stay in
    /// memory, and the directory's next holder keeps what it wrote.
    func testAStoppedClientLeavesTheReportingSegmentsOfTheDirectorysNextHolderAlone() throws {
        let first = Fixture(stateDirectory: directory)
        first.client.start()
        first.client.stop()  // gives the directory up
        let second = Fixture(stateDirectory: directory)
        try second.client.reportingVisitor(visitorId: "v-1").setDefaultSegments(["country": "FR"])
        second.client.reporting.flush()
        try first.client.reportingVisitor(visitorId: "v-1").setDefaultSegments(["country": "DE"])
        first.client.reporting.flush()
        // The background write's lines are logged off the persistence queue, after it.
        waitUntil(timeout: 10) { first.logs.count(prefix: "Segments: Reporting segments changed after stop() stay in memory") > 0 }
        XCTAssertEqual(first.logs.count(prefix: "Segments: Reporting segments changed after stop() stay in memory"), 1)
        second.client.stop()
        let restarted = Fixture(stateDirectory: directory)
        XCTAssertEqual(try restarted.client.reportingVisitor(visitorId: "v-1").segments.country, "FR",
                       "a client that gave the directory up replaced its holder's visitor file")
    }

    /// A client dropped without stop() holds its directory until its last reporting write has run:
    /// a second client on it would otherwise write the same visitor files at the same time.
    func testADroppedClientKeepsItsDirectoryUntilItsLastReportingWriteIsDone() throws {
        let entered = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        var configuration = configurationOnTheDirectory()
        // The first reporting write holds the persistence queue until the gate opens.
        configuration.reportingWriteForTesting = holdingTheFirstCall(entered: entered, gate: gate)
        var first: SegmentsClient? = SegmentsClient(configuration: configuration)
        try first!.reportingVisitor(visitorId: "held").setDefaultSegments(["country": "SK"])
        XCTAssertEqual(entered.wait(timeout: .now() + 10), .success, "the first write did not start")
        try first!.reportingVisitor(visitorId: "v").setDefaultSegments(["country": "DE"])
        first = nil  // dropped with its writes still queued

        let second = Fixture(stateDirectory: directory, directoryMayBeRefused: true)
        XCTAssertEqual(second.logs.count(prefix: "Segments: State directory \(directory.path) is in use by another client"), 1)
        gate.signal()
        second.client.stop()
    }

    /// stop() gives the directory up only once a reporting restore running on another thread has
    /// ended: that restore may still remove, rename or move aside files that the directory's next
    /// holder writes.
    func testStopWaitsForARestoreInProgressBeforeGivingTheDirectoryUp() throws {
        let entered = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        var configuration = configurationOnTheDirectory()
        configuration.reportingRestoreForTesting = holdingTheFirstCall(entered: entered, gate: gate)
        let first = SegmentsClient(configuration: configuration)
        Thread.detachNewThread { _ = try? first.reportingVisitor(visitorId: "x") }  // restores, held
        XCTAssertEqual(entered.wait(timeout: .now() + 10), .success, "the restore did not start")
        let stopped = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            first.stop()
            stopped.signal()
        }
        // A stop() that does not wait returns within the second (it has nothing else to wait for).
        XCTAssertEqual(stopped.wait(timeout: .now() + 1), .timedOut, "stop() returned while the restore was still running")
        let second = Fixture(stateDirectory: directory, directoryMayBeRefused: true)
        XCTAssertEqual(second.logs.count(prefix: "Segments: State directory \(directory.path) is in use by another client"), 1)
        second.client.stop()
        gate.signal()
        XCTAssertEqual(stopped.wait(timeout: .now() + 10), .success, "stop() returned once the restore ended")
    }

    /// A client that gave its directory up (stopped before it started) may still read its
    /// visitors, but leaves the files alone: the in-flight temporary file of the directory's next
    /// holder is not removed, and no file is renamed or moved aside.
    func testAClientThatGaveItsDirectoryUpLeavesItsFilesAlone() throws {
        let first = Fixture(stateDirectory: directory)
        first.client.stop()  // never started: gives the directory up at once
        let second = Fixture(stateDirectory: directory)
        second.client.start()
        let reportingDirectory = directory.appendingPathComponent("reporting-segments")
        try FileManager.default.createDirectory(at: reportingDirectory, withIntermediateDirectories: true)
        let temporary = reportingDirectory.appendingPathComponent(".visitor-v.tmp")
        try Data("{".utf8).write(to: temporary)  // the second client's write in progress
        _ = try first.client.reportingVisitor(visitorId: "x")
        XCTAssertTrue(FileManager.default.fileExists(atPath: temporary.path), "the next holder's temporary file was removed")
        second.client.stop()
    }

    /// The warning is about changes made after stop(): none were, so none is logged, however often
    /// the write-behind is detached (a second stop(), the client's release).
    func testStoppingTwiceWithoutAChangeLogsNoChangeAfterStop() {
        let fixture = Fixture(stateDirectory: directory)
        fixture.client.start()
        fixture.client.stop()
        fixture.client.stop()
        fixture.client.reporting.flush()
        XCTAssertEqual(fixture.logs.count(prefix: "Segments: Reporting segments changed after stop() stay in memory"), 0)
    }

    func testAVeryLongVisitorIdIsPersistedUnderAHashedName() throws {
        let longId = String(repeating: "é", count: 300)
        try persist([longId: ReportingSegments(campaign: "long")])
        let names = try FileManager.default.contentsOfDirectory(atPath: reportingDirectory.path)
        XCTAssertEqual(names.count, 1)
        XCTAssertLessThan(names[0].utf8.count, 64)
        XCTAssertEqual(try Fixture(stateDirectory: directory).client.reportingVisitor(visitorId: longId).segments.campaign, "long")
    }

    func testACorruptFileIsLoggedAndIgnored() throws {
        try persist(["good": ReportingSegments(country: "DE")])
        let corrupt = reportingDirectory.appendingPathComponent("visitor-bad.json")
        try Data("{not json".utf8).write(to: corrupt)
        let fixture = Fixture(stateDirectory: directory)
        fixture.client.start()
        XCTAssertEqual(fixture.client.reporting.visitorCount, 1)
        XCTAssertEqual(try fixture.client.reportingVisitor(visitorId: "good").segments.country, "DE")
        let errors = fixture.logs.all.filter { $0.level == .error }.map(\.message)
        XCTAssertEqual(errors.count, 1)
        XCTAssertTrue(errors[0].hasPrefix("Segments: Ignoring corrupt reporting segments file \(corrupt.path): "), errors[0])
    }

    /// A file skipped at restore (of a newer version, say, after a downgrade) is moved aside, not
    /// replaced by the visitor's next setter: what it held stays on disk.
    func testAFileSkippedAtRestoreIsKeptAsideNotOverwrittenByTheNextSetter() throws {
        let skipped = reportingDirectory.appendingPathComponent("visitor-v.json")
        let newer = Data(#"{"version":2,"visitorId":"v","segments":{"country":"DE"}}"#.utf8)
        try FileManager.default.createDirectory(at: reportingDirectory, withIntermediateDirectories: true)
        try newer.write(to: skipped)
        let fixture = Fixture(stateDirectory: directory)
        fixture.client.start()
        try fixture.client.reportingVisitor(visitorId: "v").setDefaultSegments(["browser": "x"])
        fixture.client.reporting.flush()
        let names = try FileManager.default.contentsOfDirectory(atPath: reportingDirectory.path)
        let kept = names.filter { $0.hasPrefix("visitor-v.json.skipped-") }
        XCTAssertEqual(kept.count, 1, "\(names)")
        XCTAssertEqual(try kept.first.map { try Data(contentsOf: reportingDirectory.appendingPathComponent($0)) }, newer)
        let errors = fixture.logs.all.filter { $0.level == .error }.map(\.message)
        XCTAssertTrue(errors.first?.hasSuffix("; kept as \(kept.first ?? "")") ?? false, "\(errors)")
    }

    /// Nesting that `JSONDecoder` traps on (513 `[`, the last one ending the file) is a corrupt
    /// file like any other: logged and skipped, not a crash at start.
    func testAFileNestedTooDeepIsLoggedAndIgnoredNotACrash() throws {
        try persist(["good": ReportingSegments(country: "DE")])
        let corrupt = reportingDirectory.appendingPathComponent("visitor-deep.json")
        try Data(repeating: UInt8(ascii: "["), count: 513).write(to: corrupt)
        let fixture = Fixture(stateDirectory: directory)
        fixture.client.start()
        XCTAssertEqual(fixture.client.reporting.visitorCount, 1)
        let errors = fixture.logs.all.filter { $0.level == .error }.map(\.message)
        XCTAssertEqual(errors.count, 1)
        XCTAssertTrue(errors.first?.hasPrefix("Segments: Ignoring corrupt reporting segments file \(corrupt.path): ") ?? false, "\(errors)")
    }

    func testALeftoverTemporaryFileFromAnInterruptedWriteDoesNotAffectRestore() throws {
        try persist(["v-1": ReportingSegments(country: "old")])
        // What a crash between writing the temporary file and renaming it leaves behind.
        let leftover = reportingDirectory.appendingPathComponent(".visitor-v-1.tmp")
        try Data(#"{"version":1,"visitorId":"v-1","segments":{"country":"ne"#.utf8).write(to: leftover)
        let fixture = Fixture(stateDirectory: directory)
        XCTAssertEqual(try fixture.client.reportingVisitor(visitorId: "v-1").segments, ReportingSegments(country: "old"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: leftover.path), "the leftover is removed")
        XCTAssertEqual(fixture.logs.all.filter { $0.level == .error }.count, 0)
    }

    func testRapidUpdatesOfOneVisitorCoalesceIntoFewerWrites() throws {
        let fixture = Fixture(stateDirectory: directory)
        let visitor = try fixture.client.reportingVisitor(visitorId: "v-1")
        for call in 0..<1_000 { visitor.setCustomSegments(["\(call)"]) }
        fixture.client.reporting.flush()
        let written = fixture.client.reporting.persistedWrites
        XCTAssertGreaterThan(written.files, 0)
        XCTAssertLessThan(written.files, 1_000)
        fixture.client.releaseStateDirectoryForTesting()
        let reader = Fixture(stateDirectory: directory)
        XCTAssertEqual(try reader.client.reportingVisitor(visitorId: "v-1").segments.customSegments.count, 1_000)
    }

    /// A write's `Segments:` lines reach the app's log handler, which is app code, while no
    /// persistence work waits on it: a handler that reacts to a failed write by making room and
    /// flushing (on another thread, waiting for it) is not held up, and the flush writes.
    func testAWriteFailureIsLoggedWithoutHoldingThePersistenceQueue() throws {
        try blockReportingDirectory()
        let manager = Locked<ReportingSegmentsManager?>(nil)
        let linesThatBlockedTheApp = Locked<[String]>([])
        let handled = DispatchSemaphore(value: 0)
        let reportingDirectory = reportingDirectory
        let logger = Logger(label: "write") { _ in
            CallingLogHandler { message in
                guard message.hasPrefix("Segments: Cannot create reporting segments directory"),
                    let manager = manager.withLock({ $0 })
                else { return }
                try? FileManager.default.removeItem(at: reportingDirectory)  // room for the next write
                let flushed = DispatchSemaphore(value: 0)
                Thread.detachNewThread {
                    manager.flush()
                    flushed.signal()
                }
                if flushed.wait(timeout: .now() + 10) == .timedOut {
                    linesThatBlockedTheApp.withLock { $0.append(message) }
                }
                handled.signal()
            }
        }
        let reporting = ReportingSegmentsManager(stateDirectory: directory, logger: logger)
        manager.withLock { $0 = reporting }
        reporting.restoreIfNeeded()
        reporting.setDefaultSegments(["country": "DE"], visitorId: "v-1")  // written in the background, and failing
        XCTAssertEqual(handled.wait(timeout: .now() + 10), .success, "the failure was logged")
        XCTAssertEqual(linesThatBlockedTheApp.withLock { $0 }, [], "no line was logged while the persistence queue waited on it")
        reporting.flush()
        XCTAssertEqual(reporting.persistedWrites.files, 1, "the handler's flush wrote the visitor kept after the failure")
    }

    /// Restore logs (a corrupt file, the count restored) only after it released its lock: a log
    /// handler is app code, and one that asks the reporting manager something from another thread
    /// and waits for the answer must get it.
    func testRestoreLogsWithoutHoldingItsLock() throws {
        try persist(["good": ReportingSegments(country: "DE")])
        try Data("{not json".utf8).write(to: reportingDirectory.appendingPathComponent("visitor-bad.json"))
        let manager = Locked<ReportingSegmentsManager?>(nil)
        let linesThatBlockedTheApp = Locked<[String]>([])
        let logger = Logger(label: "restore") { _ in
            CallingLogHandler { message in
                guard let manager = manager.withLock({ $0 }) else { return }
                let answered = DispatchSemaphore(value: 0)
                Thread.detachNewThread {
                    _ = manager.visitorCount
                    answered.signal()
                }
                if answered.wait(timeout: .now() + 10) == .timedOut {
                    linesThatBlockedTheApp.withLock { $0.append(message) }
                }
            }
        }
        let reporting = ReportingSegmentsManager(stateDirectory: directory, logger: logger)
        manager.withLock { $0 = reporting }
        reporting.restoreIfNeeded()
        XCTAssertEqual(reporting.visitorCount, 1)
        XCTAssertEqual(linesThatBlockedTheApp.withLock { $0 }, [], "no line was logged under the restore lock")
    }
}
