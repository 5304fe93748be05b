@testable import RealtimeSegments
import Foundation
import Logging
import RealtimeSegmentsTesting
import XCTest

/// The event journal across process deaths: replay in order, acknowledged uploads not sent again,
/// a torn tail skipped, the disk cap's policy (memory only, nothing lost), and a journal directory
/// damaged or tampered with.
final class JournalReplayTests: XCTestCase {
    private var directory: URL!

    override func setUp() {
        directory = temporaryDirectory()
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: directory)
    }

    private var journalDirectory: URL { JournalRecovery.directory(in: directory) }

    private var segmentFiles: [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: journalDirectory.path)) ?? []
        return names.filter { JournalSegmentFile.index(ofName: $0) != nil }.sorted().map { journalDirectory.appendingPathComponent($0) }
    }

    private func journaled(
        _ journal: JournalConfiguration = JournalConfiguration(), configure: (inout SegmentsConfiguration) -> Void = { _ in }
    ) -> Fixture {
        Fixture(stateDirectory: directory) {
            $0.journal = journal
            configure(&$0)
        }
    }

    private func segmentFile(_ index: UInt64) -> URL {
        journalDirectory.appendingPathComponent(JournalSegmentFile.name(index: index))
    }

    /// Writes a file named `name` into the journal's directory, making the directory first.
    private func writeJournalFile(_ name: String, _ bytes: [UInt8]) throws {
        try FileManager.default.createDirectory(at: journalDirectory, withIntermediateDirectories: true)
        try Data(bytes).write(to: journalDirectory.appendingPathComponent(name))
    }

    private func record(_ record: JournalRecord) -> [UInt8] {
        var bytes: [UInt8] = []
        record.append(to: &bytes)
        return bytes
    }

    private func event(_ type: String) -> UploadItem {
        .event(TrackedEvent(customerIds: ["cookie": "c"], eventType: type, timestamp: 1_700_000_000, properties: [:]))
    }

    /// Asserts that `flushJournal()` throws `journalUnavailable` with a reason containing `reason`;
    /// `message` is the failure when it returns.
    private func assertJournalUnavailable(
        _ fixture: Fixture, because reason: String, else message: String, file: StaticString = #filePath, line: UInt = #line
    ) async {
        do {
            try await fixture.client.flushJournal()
            XCTFail(message, file: file, line: line)
        } catch {
            guard case .journalUnavailable(let said) = error else { return XCTFail("\(error)", file: file, line: line) }
            XCTAssertTrue(said.contains(reason), said, file: file, line: line)
        }
    }

    /// Journals an event through `fixture` and uploads it; fails the test if the journal could not
    /// take it.
    private func trackAndFlush(_ fixture: Fixture, _ type: String, file: StaticString = #filePath, line: UInt = #line) async {
        do {
            try fixture.client.trackEvent(eventType: type)
            try await fixture.client.flushJournal()
        } catch {
            XCTFail("\(error)", file: file, line: line)
        }
        fixture.settle()
    }

    /// A process that dies before its uploads are acknowledged: this client's uploads all fail
    /// (and are retried only when the test's clock moves, which it never does), it is never
    /// stopped while the next client runs on the same directory, and its hold on the directory is
    /// dropped, as the kernel drops a dead process's.
    private func clientThatDies(_ journal: JournalConfiguration = JournalConfiguration()) -> Fixture {
        let fixture = journaled(journal)
        fixture.transport.failNext(.trackEvents, with: .timeout, count: 1_000)
        fixture.transport.failNext(.identifyCustomer, with: .timeout, count: 1_000)
        fixture.client.start()
        fixture.client.releaseStateDirectoryForTesting()
        return fixture
    }

    func testWhatAClientThatDiedHadJournaledIsUploadedInOrderBeforeNewEvents() async throws {
        let first = clientThatDies()
        for index in 0..<5 { try first.client.trackEvent(eventType: "before-\(index)", properties: ["i": .number(Double(index))]) }
        try first.client.identifyCustomer(properties: ["tier": "gold"])
        try first.client.trackEvent(eventType: "before-5")
        try await first.client.flushJournal()
        first.settle()
        XCTAssertTrue(first.transport.trackedEvents.isEmpty)

        let second = journaled()
        second.client.start()
        try second.client.trackEvent(eventType: "after")
        second.settle()

        XCTAssertEqual(second.transport.trackedEvents.map(\.eventType), (0..<6).map { "before-\($0)" } + ["after"])
        XCTAssertEqual(second.transport.trackedEvents.first?.customerIds, first.client.customerIds)
        XCTAssertEqual(second.transport.trackedEvents.first?.properties, ["i": 0])
        XCTAssertEqual(second.transport.customerUpdates.map(\.properties), [["tier": "gold"]])
        XCTAssertEqual(second.logs.count(prefix: "Segments: Replaying 7 unacknowledged uploads from the event journal"), 1)
    }

    /// A record damaged in the middle of a file (a flipped bit; writes never go on after a torn
    /// one) costs that record only: the intact records after it are replayed. They were skipped
    /// as a torn tail, and the file deleted once the records before the damage were answered.
    func testADamagedRecordFollowedByIntactOnesCostsThatRecordOnly() async throws {
        var bytes = (1...3).flatMap { record(.item(sequence: UInt64($0), event("e\($0)"))) }
        let second = record(.item(sequence: 1, event("e1"))).count + JournalRecord.headerSize + 12
        bytes[second] ^= 0x40
        try writeJournalFile(segmentFile(1).lastPathComponent, bytes)
        let fixture = journaled()
        fixture.client.start()
        fixture.settle()
        XCTAssertEqual(fixture.transport.trackedEvents.map(\.eventType), ["e1", "e3"])
        XCTAssertEqual(fixture.logs.count(prefix: "Segments: Event journal file \(segmentFile(1).lastPathComponent) has a damaged record at byte"), 1,
                       "\(fixture.logs.messages)")
        XCTAssertEqual(fixture.logs.count(prefix: "Segments: Event journal file \(segmentFile(1).lastPathComponent) has a damaged tail"), 0)
    }

    /// What follows a damaged record counts as intact only if it could have been written after
    /// it: an item numbered below the file's items so far is stale bytes, and the damage a tail.
    func testADamagedRecordFollowedByAStaleItemIsATail() async throws {
        var bytes = record(.item(sequence: 5, event("e5"))) + record(.item(sequence: 6, event("e6")))
        let damaged = record(.item(sequence: 5, event("e5"))).count + JournalRecord.headerSize + 12
        bytes[damaged] ^= 0x40
        bytes += record(.item(sequence: 2, event("stale")))
        try writeJournalFile(segmentFile(1).lastPathComponent, bytes)
        let fixture = journaled()
        fixture.client.start()
        fixture.settle()
        XCTAssertEqual(fixture.transport.trackedEvents.map(\.eventType), ["e5"])
        XCTAssertEqual(fixture.logs.count(prefix: "Segments: Event journal file \(segmentFile(1).lastPathComponent) has a damaged tail"), 1)
    }

    func testATornTailIsSkippedWithALogLineAndWhatCameBeforeItIsUploaded() async throws {
        let first = clientThatDies()
        try first.client.trackEvent(eventType: "whole")
        try await first.client.flushJournal()
        first.settle()
        let file = try XCTUnwrap(segmentFiles.last)
        // A crash in the middle of the next record's write.
        let handle = try FileHandle(forWritingTo: file)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([40, 0, 0, 0, 0x12, 0x34, 0x56, 0x78, 1, 2, 3]))
        try handle.close()

        let second = journaled()
        second.client.start()
        second.settle()

        XCTAssertEqual(second.transport.trackedEvents.map(\.eventType), ["whole"])
        XCTAssertEqual(second.logs.count(prefix: "Segments: Event journal file \(file.lastPathComponent) has a damaged tail at byte"), 1)
    }

    func testAcknowledgedUploadsAreNotSentAgainAndTheirSegmentFilesAreDeleted() async throws {
        // 4 KiB cap: 1 KiB segments, so each of these events fills one.
        let journal = JournalConfiguration(maxBytes: 4_096)
        let first = journaled(journal)
        first.client.start()
        let padding = JSONValue.string(String(repeating: "x", count: 1_100))
        for index in 0..<6 {
            try first.client.trackEvent(eventType: "sent-\(index)", properties: ["padding": padding])
            try await first.client.flushJournal()
            first.settle()
        }
        XCTAssertEqual(first.transport.trackedEvents.count, 6)
        XCTAssertEqual(segmentFiles.count, 1, "answered segment files are deleted as new ones start")

        first.client.releaseStateDirectoryForTesting()  // as the kernel does at a crash
        let second = journaled(journal)
        second.client.start()
        second.settle()
        XCTAssertEqual(second.transport.trackedEvents.count, 0, "the first client's uploads were all acknowledged")
        XCTAssertEqual(second.logs.count(prefix: "Segments: Replaying"), 0)
    }

    func testAStopAfterEveryUploadWasAnsweredLeavesNoSegmentFile() async throws {
        let fixture = journaled()
        fixture.client.start()
        try fixture.client.trackEvent(eventType: "a")
        try await fixture.client.flushJournal()
        fixture.settle()
        XCTAssertEqual(segmentFiles.count, 1)
        fixture.client.stop()
        XCTAssertEqual(segmentFiles.count, 0)
    }

    func testAFullJournalKeepsEventsInMemoryAndTheStateFileKeepsThemAtStopSoNoneIsLost() async throws {
        let journal = JournalConfiguration(maxBytes: 4_096)
        let first = clientThatDies(journal)
        let padding = JSONValue.string(String(repeating: "x", count: 1_000))
        for index in 0..<10 { try first.client.trackEvent(eventType: "e\(index)", properties: ["padding": padding]) }
        do {
            try await first.client.flushJournal()
            XCTFail("the journal cannot hold ten 1 KB events in 4 KiB")
        } catch {
            guard case .journalUnavailable = error else { return XCTFail("\(error)") }
        }
        first.settle()
        XCTAssertEqual(first.logs.count(prefix: "Segments: Event journal paused because it holds its maximum of 4096 bytes"), 1)
        let bytes = try segmentFiles.reduce(0) { $0 + (try $1.resourceValues(forKeys: [.fileSizeKey]).fileSize ?? 0) }
        XCTAssertLessThanOrEqual(bytes, 4_096)
        first.client.stop()  // the final upload fails too: what the journal lacks goes to the state file

        let second = journaled(journal)
        second.client.start()
        second.settle()
        XCTAssertEqual(second.transport.trackedEvents.map(\.eventType), (0..<10).map { "e\($0)" })
    }

    func testJournalingResumesOnceTheEventsKeptInMemoryHaveBeenUploaded() async throws {
        let fixture = journaled(JournalConfiguration(maxBytes: 4_096))
        fixture.transport.failNext(.trackEvents, with: .timeout)
        fixture.client.start()
        let padding = JSONValue.string(String(repeating: "x", count: 1_000))
        for index in 0..<10 { try fixture.client.trackEvent(eventType: "e\(index)", properties: ["padding": padding]) }
        fixture.settle()
        XCTAssertEqual(fixture.logs.count(prefix: "Segments: Event journal paused"), 1)

        fixture.advance(.seconds(1))  // the retry succeeds, and the rest follows

        XCTAssertEqual(fixture.transport.trackedEvents.map(\.eventType), (0..<10).map { "e\($0)" })
        XCTAssertEqual(fixture.logs.count(prefix: "Segments: Event journal resumes"), 1)
        try fixture.client.trackEvent(eventType: "journaled again")
        try await fixture.client.flushJournal()
    }

    /// Turning the journal off does not silently forget what an earlier run journaled: the files
    /// stay, a warning names them, and turning the journal on again replays them.
    func testSegmentFilesFoundWithTheJournalOffAreKeptAndNamedInAWarning() async throws {
        let first = clientThatDies()
        for index in 0..<3 { try first.client.trackEvent(eventType: "before-\(index)") }
        try await first.client.flushJournal()
        first.settle()
        let files = segmentFiles
        XCTAssertFalse(files.isEmpty)

        let off = Fixture(stateDirectory: directory)
        off.client.start()
        off.settle()
        XCTAssertEqual(off.logs.count(prefix: "Segments: The event journal is off but \(journalDirectory.path) holds \(files.count) segment file"), 1)
        XCTAssertEqual(segmentFiles, files, "the files are kept")
        off.client.stop()

        let on = journaled()
        on.client.start()
        on.settle()
        XCTAssertEqual(on.transport.trackedEvents.map(\.eventType), (0..<3).map { "before-\($0)" })
    }

    func testAJournalWithoutAStateDirectoryIsIgnoredWithAWarning() {
        let fixture = Fixture { $0.journal = JournalConfiguration() }
        XCTAssertNil(fixture.client.configuration.journal)
        XCTAssertEqual(fixture.logs.count(prefix: "Segments: configuration journal is ignored"), 1)
    }

    // MARK: What a start finds after accidents or tampering

    // Names and records at the end of the number range, a segment file that cannot be read, a
    // record that cannot be read, and marks of what the server answered that must outlive the
    // files they answer for.

    func testASegmentFileNamedForTheLastIndexIsLeftAloneAndTheJournalWorks() async throws {
        let name = "events-18446744073709551615.journal"
        try writeJournalFile(name, [])
        let fixture = journaled()
        fixture.client.start()
        await trackAndFlush(fixture, "a")
        XCTAssertEqual(fixture.transport.trackedEvents.map(\.eventType), ["a"])
        XCTAssertEqual(fixture.logs.count(prefix: "Segments: Event journal file \(name) is not one this journal wrote"), 1)
    }

    func testARecordNumberedAtTheEndOfTheRangeIsADamagedTailNotACrash() async throws {
        let bytes = record(.item(sequence: 1, event("kept"))) + record(.item(sequence: .max, event("forged")))
        try writeJournalFile(segmentFile(1).lastPathComponent, bytes)
        let fixture = journaled()
        fixture.client.start()
        await trackAndFlush(fixture, "new")
        XCTAssertEqual(fixture.transport.trackedEvents.map(\.eventType), ["kept", "new"])
        XCTAssertEqual(fixture.logs.count(prefix: "Segments: Event journal file \(segmentFile(1).lastPathComponent) has a damaged tail"), 1)

        fixture.client.stop()
        try FileManager.default.removeItem(at: journalDirectory)
        let acknowledged = record(.item(sequence: 1, event("kept"))) + record(.acknowledged(through: .max))
        try writeJournalFile(segmentFile(1).lastPathComponent, acknowledged)
        let again = journaled()
        again.client.start()
        await trackAndFlush(again, "newer")
        XCTAssertEqual(again.transport.trackedEvents.map(\.eventType), ["kept", "newer"])
    }

    /// The journal writes whatever properties an event has, but reads back only what its
    /// nesting limit allows: such a record, intact, is skipped alone, not taken for the damaged
    /// tail of its file with everything after it.
    func testAnIntactRecordThatCannotBeReadIsSkippedAndTheRestOfItsFileReplayed() async throws {
        var deep = JSONValue.number(1)
        for _ in 0..<1_001 { deep = .array([deep]) }
        let nested = UploadItem.event(TrackedEvent(
            customerIds: ["cookie": "c"], eventType: "nested", timestamp: 1_700_000_000, properties: ["deep": deep]))
        let bytes = record(.item(sequence: 1, nested)) + record(.item(sequence: 2, event("after")))
        try writeJournalFile(segmentFile(1).lastPathComponent, bytes)
        let fixture = journaled()
        fixture.client.start()
        fixture.settle()
        XCTAssertEqual(fixture.transport.trackedEvents.map(\.eventType), ["after"])
        XCTAssertEqual(fixture.logs.count(prefix: "Segments: Event journal file \(segmentFile(1).lastPathComponent) has a record at byte 0 that cannot be read"), 1)
    }

    /// An upload too large for a journal record (which replay would read as damage) is kept in
    /// memory and in the state file at stop, and `flushJournal()` says it is not journaled.
    func testAnUploadTooLargeForARecordIsKeptOutOfTheJournalAndSavedAtStop() async throws {
        let journal = JournalConfiguration(maxBytes: 4 * JournalRecord.maxBodySize)
        let big = JSONValue.string(String(repeating: "x", count: JournalRecord.maxBodySize + 1))
        do {
            let first = journaled(journal)
            first.transport.failNext(.trackEvents, with: .timeout, count: 1_000)
            first.client.start()
            try first.client.trackEvent(eventType: "big", properties: ["padding": big])
            await assertJournalUnavailable(
                first, because: "larger than a journal record",
                else: "flushJournal returned: the event is in the journal, where replay reads it as damage")
            // Encoding and saving 64 MiB takes seconds in a sanitized build.
            first.client.stop(timeout: .seconds(300))
        }
        let second = journaled(journal)
        second.client.start()
        second.settle()
        XCTAssertEqual(second.transport.trackedEvents.map(\.eventType), ["big"])
    }

    /// A segment file that cannot be read sets the journal aside for the run: a mark written now
    /// would hide the unread file's events once it can be read, so nothing is replayed, written or
    /// deleted, and `flushJournal()` says why the events are not durable.
    func testASegmentFileThatCannotBeReadSetsTheJournalAsideForTheRun() async throws {
        try writeJournalFile(segmentFile(1).lastPathComponent, record(.item(sequence: 1, event("old"))))
        try FileManager.default.createDirectory(at: segmentFile(2), withIntermediateDirectories: false)  // unreadable as a file
        let fixture = journaled()
        fixture.transport.failNext(.trackEvents, with: .timeout, count: 1_000)
        fixture.client.start()
        try fixture.client.trackEvent(eventType: "new")
        await assertJournalUnavailable(fixture, because: "set aside", else: "flushJournal returned although the journal is set aside")
        XCTAssertFalse(FileManager.default.fileExists(atPath: segmentFile(3).path), "nothing is written")
        XCTAssertTrue(FileManager.default.fileExists(atPath: segmentFile(1).path), "nothing is deleted")
        XCTAssertEqual(fixture.logs.count(prefix: "Segments: The event journal is set aside for this run"), 1)
        XCTAssertEqual(fixture.logs.count(prefix: "Segments: Replaying"), 0)
    }

    /// Frames `body` as a journal record, with its length and a checksum that holds.
    private func framed(_ body: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        withUnsafeBytes(of: UInt32(body.count).littleEndian) { bytes.append(contentsOf: $0) }
        let checksum = body.withUnsafeBytes { CRC32.checksum($0) }
        withUnsafeBytes(of: checksum.littleEndian) { bytes.append(contentsOf: $0) }
        return bytes + body
    }

    /// An intact record of a kind this version does not know was written by a newer version of the
    /// library (an app downgraded, or two versions sharing a directory). Read as damage, it and
    /// every record after it were skipped, and deleted with the file once the records before it
    /// were answered. The journal is set aside for the run instead, its files left in place.
    func testAnIntactRecordOfAnUnknownKindSetsTheJournalAsideAndLeavesItsFileInPlace() async throws {
        let newer = framed([3] + Array(repeating: 0, count: 8) + Array("a newer record".utf8))
        let bytes = record(.item(sequence: 1, event("before"))) + newer + record(.item(sequence: 2, event("after")))
        try writeJournalFile(segmentFile(1).lastPathComponent, bytes)
        let fixture = journaled()
        fixture.client.start()
        try fixture.client.trackEvent(eventType: "new")
        await assertJournalUnavailable(fixture, because: "newer version", else: "flushJournal returned although the journal holds a newer version's record")
        fixture.settle()
        XCTAssertEqual(fixture.transport.trackedEvents.map(\.eventType), ["new"], "nothing is replayed from a file this version cannot read in full")
        fixture.client.stop(timeout: .seconds(5))
        XCTAssertEqual(try Data(contentsOf: segmentFile(1)), Data(bytes), "the file is left as it was")
        XCTAssertEqual(fixture.logs.count(prefix: "Segments: Event journal file \(segmentFile(1).lastPathComponent) holds a record at byte \(record(.item(sequence: 1, event("before"))).count) of kind 3, written by a newer version"), 1,
                       "\(fixture.logs.messages)")
        XCTAssertEqual(fixture.logs.count(prefix: "Segments: The event journal is set aside for this run"), 1)
    }

    /// The same for an intact item record whose upload is of a kind, holds a value, or carries a
    /// field after it, that this version does not know: skipped as unreadable, that upload was lost.
    func testAnIntactItemOfAnUnknownKindSetsTheJournalAside() async throws {
        var knownItem: [UInt8] = []
        JournalRecord.item(sequence: 2, event("known")).append(to: &knownItem)
        let knownBody = Array(knownItem[JournalRecord.headerSize...])
        // The event's properties end the body, an empty map's UInt32 count: one entry instead,
        // "k" (a UInt32 length, then its bytes) holding a value of tag 99.
        let newerValue = Array(knownBody.dropLast(4)) + [1, 0, 0, 0] + [1, 0, 0, 0] + Array("k".utf8) + [99]
        let newerRecords: [(String, [UInt8])] = [
            ("an upload of unknown kind", framed([1, 2, 0, 0, 0, 0, 0, 0, 0, 9] + Array("a newer upload".utf8))),
            ("a value of unknown tag", framed(newerValue)),
            ("3 bytes after the upload", framed(knownBody + [7, 7, 7])),
        ]
        for (what, newerItem) in newerRecords {
            try? FileManager.default.removeItem(at: journalDirectory)
            let bytes = record(.item(sequence: 1, event("before"))) + newerItem
            try writeJournalFile(segmentFile(1).lastPathComponent, bytes)
            let fixture = journaled()
            fixture.client.start()
            await assertJournalUnavailable(fixture, because: "newer version", else: "\(what): flushJournal returned although the journal holds a newer version's upload")
            fixture.settle()
            XCTAssertEqual(fixture.transport.trackedEvents.map(\.eventType), [], what)
            fixture.client.stop(timeout: .seconds(5))
            XCTAssertEqual(try Data(contentsOf: segmentFile(1)), Data(bytes), what)
            XCTAssertEqual(fixture.logs.messages.filter { $0.hasPrefix("Segments: Event journal file") && $0.contains(what) }.count, 1,
                           "\(what): \(fixture.logs.messages)")
        }
    }

    /// A journal directory that exists but cannot be listed (here a file in its place, as for
    /// EACCES) is not an empty journal: its files' numbers would be taken again, and the mark of
    /// what this run's server answers would hide their events at the next start.
    func testAJournalDirectoryThatCannotBeListedSetsTheJournalAsideForTheRun() async throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data("not a directory".utf8).write(to: journalDirectory)
        let fixture = journaled()
        fixture.client.start()
        try fixture.client.trackEvent(eventType: "new")
        await assertJournalUnavailable(fixture, because: "set aside", else: "flushJournal returned although the journal could not be listed")
        XCTAssertEqual(fixture.logs.count(prefix: "Segments: The event journal is set aside for this run: \(journalDirectory.path)"), 1,
                       "\(fixture.logs.messages)")
        XCTAssertEqual(try Data(contentsOf: journalDirectory), Data("not a directory".utf8), "left as it was")
    }

    /// A FIFO named as a segment file would block its read, and with it the client's creation.
    func testASegmentFileThatIsAFIFOSetsTheJournalAsideInsteadOfBlocking() throws {
        try FileManager.default.createDirectory(at: journalDirectory, withIntermediateDirectories: true)
        XCTAssertEqual(mkfifo(segmentFile(1).path, 0o600), 0)
        let read = DispatchSemaphore(value: 0)
        let journalDirectory = journalDirectory
        let unreadable = Locked<[String]>([])
        Thread {
            let recovery = JournalRecovery.read(directory: journalDirectory, logger: Logger(label: "test"))
            unreadable.withLock { $0 = recovery.unreadableFiles }
            read.signal()
        }.start()
        XCTAssertEqual(read.wait(timeout: .now() + 10), .success, "reading the journal blocked on the FIFO")
        XCTAssertEqual(unreadable.withLock { $0 }.count, 1)
    }

    /// The run after one that could not read a segment file uploads that file's events: what
    /// the server answered in between does not hide them.
    func testTheEventsOfAFileUnreadableAtOneStartAreUploadedOnceItCanBeRead() async throws {
        try writeJournalFile(segmentFile(1).lastPathComponent,
                             (1...3).flatMap { record(.item(sequence: UInt64($0), event("old-\($0)"))) })
        let aside = directory.appendingPathComponent("aside")
        try FileManager.default.moveItem(at: segmentFile(1), to: aside)
        try FileManager.default.createDirectory(at: segmentFile(1), withIntermediateDirectories: false)  // unreadable as a file
        do {
            let server = AdmittingTransport { events throws(SegmentsError) in
                guard events.allSatisfy({ $0.eventType != "new-3" }) else { throw .timeout }
            }
            let second = journaled {
                $0.transport = server
                $0.flushingMode = .manual
                $0.maxUploadBatchSize = 1
            }
            second.client.start()
            for index in 1...3 { try second.client.trackEvent(eventType: "new-\(index)") }
            second.client.flush()  // new-1 and new-2 are accepted; new-3 times out
            second.settle()
            XCTAssertEqual(server.accepted.trackedEvents.map(\.eventType), ["new-1", "new-2"])
            second.client.stop(timeout: .seconds(5))
        }
        try FileManager.default.removeItem(at: segmentFile(1))
        try FileManager.default.moveItem(at: aside, to: segmentFile(1))
        let third = journaled()
        third.client.start()
        third.settle()
        XCTAssertEqual(third.transport.trackedEvents.map(\.eventType), ["old-1", "old-2", "old-3", "new-3"])
    }

    /// The mark of what the server answered can be the only record of a segment file. Deleted
    /// while an older file still held unanswered items, the answered ones were sent again.
    func testAMarkInAFileOfItsOwnOutlivesTheOlderFileItAnswersFor() async throws {
        // 4 KiB cap: 1 KiB segments. The three events fill the first; the mark for e0 starts the next.
        let journal = JournalConfiguration(maxBytes: 4_096)
        let padding = JSONValue.string(String(repeating: "x", count: 400))
        do {
            let server = AdmittingTransport { events throws(SegmentsError) in
                guard events.allSatisfy({ $0.eventType == "e0" }) else { throw .timeout }
            }
            let first = journaled(journal) {
                $0.transport = server
                $0.flushingMode = .manual
                $0.maxUploadBatchSize = 1
            }
            first.client.start()
            for type in ["e0", "e1", "e2"] { try first.client.trackEvent(eventType: type, properties: ["padding": padding]) }
            try await first.client.flushJournal()
            first.client.flush()  // e0 is accepted; e1 times out and waits for a retry the still clock never reaches
            first.settle()
            XCTAssertEqual(server.accepted.trackedEvents.map(\.eventType), ["e0"])
            first.client.stop(timeout: .seconds(5))
        }
        let second = journaled(journal)
        second.client.start()
        second.settle()
        XCTAssertEqual(second.transport.trackedEvents.map(\.eventType), ["e1", "e2"], "e0 was answered before the restart")
    }
}
