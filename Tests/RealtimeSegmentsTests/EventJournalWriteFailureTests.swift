#if os(Linux)
@testable import RealtimeSegments
import Foundation
import Logging
import XCTest

/// A journal write that fails part way (the file-size limit stands in for a full disk): the
/// records written whole stay journaled and no longer count as memory only, and what was written
/// before the failure is still synced.
final class EventJournalWriteFailureTests: XCTestCase {
    private var directory: URL!
    private let counters = EngineCounters()
    private let now = SegmentsInstant(nanoseconds: 1)
    private let logs = LogCapture()

    override func setUp() {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("journal-fail-\(UUID().uuidString)")
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: directory)
    }

    private func journal(_ durability: JournalConfiguration.Durability) -> EventJournal {
        EventJournal(
            configuration: JournalConfiguration(durability: durability), recovery: JournalRecovery(directory: directory),
            logger: logs.makeLogger(), counters: counters)
    }

    private func event(_ type: String) -> UploadItem {
        .event(TrackedEvent(customerIds: ["cookie": "c"], eventType: type, timestamp: 1, properties: [:]))
    }

    private func recordSize(_ item: UploadItem) -> Int {
        var bytes: [UInt8] = []
        JournalRecord.item(sequence: 1, item).append(to: &bytes)
        return bytes.count
    }

    /// Runs `body` with each file this process writes limited to `bytes` (`EFBIG` beyond, not a
    /// signal); the limit and the signal's handling are restored however `body` ends.
    private func withFileSizeLimit(_ bytes: Int, _ body: () -> Void) {
        let previousHandler = signal(SIGXFSZ, SIG_IGN)
        defer { signal(SIGXFSZ, previousHandler) }
        var previous = rlimit()
        getrlimit(Int32(RLIMIT_FSIZE.rawValue), &previous)
        var limited = previous
        limited.rlim_cur = rlim_t(bytes)
        guard setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limited) == 0 else { return XCTFail("setrlimit(RLIMIT_FSIZE) failed") }
        defer {
            var restored = previous
            setrlimit(Int32(RLIMIT_FSIZE.rawValue), &restored)
        }
        body()
    }

    private func replayed() -> [String] {
        JournalRecovery.read(directory: directory, logger: Logger(label: "EventJournalWriteFailureTests")).entries.map { entry in
            guard case .event(let event) = entry.item else { return "?" }
            return event.eventType
        }
    }

    func testRecordsWrittenWholeBeforeAFailedWriteStayJournaledAndAreNotAlsoMemoryOnly() {
        let journal = journal(.everyCommit)
        let items = ["e0", "e1", "e2"].map(event)
        for item in items { journal.queue(item) }
        // One record and a half fit.
        withFileSizeLimit(recordSize(items[0]) + recordSize(items[1]) / 2) { journal.commit(at: now) }
        XCTAssertEqual(replayed(), ["e0"], "e0 was written whole")
        XCTAssertEqual(journal.memoryOnlyCount, 2, "only e1 and e2 are for the state file to hold")
    }

    /// A journal synced at intervals holding `a` (synced, answered: a mark is due) and `b` (written
    /// within the interval, not synced), and the fsyncs counted so far.
    private func journalWithAnUnsyncedWrite() -> (EventJournal, fsyncs: Int) {
        let journal = journal(.interval(milliseconds: 60_000))
        journal.queue(event("a"))
        journal.commit(at: now)  // the first commit syncs
        journal.queue(event("b"))
        journal.commit(at: now)  // within the interval: not synced
        let fsyncs = counters.journalFsyncs.load(ordering: .relaxed)
        journal.acknowledge(1)
        return (journal, fsyncs)
    }

    func testWritesBeforeAFailedWriteAreSyncedWhenItsFileIsClosed() {
        let (journal, fsyncs) = journalWithAnUnsyncedWrite()
        withFileSizeLimit(journal.totalBytes) { journal.commit(at: now) }  // the mark cannot be written
        XCTAssertGreaterThan(counters.journalFsyncs.load(ordering: .relaxed), fsyncs, "b was synced before its file was closed")
        XCTAssertNoThrow(try journal.syncForFlush(at: now).get())
    }
}

extension EventJournalWriteFailureTests {
    /// The descriptor this process holds open on a file in the journal's directory.
    private func journalFileDescriptor() -> Int32? {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for entry in entries {
            guard let descriptor = Int32(entry),
                let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(entry)"),
                target.hasPrefix(directory.path)
            else { continue }
            return descriptor
        }
        return nil
    }

    /// Makes the open segment file's descriptor write into a pipe, whose fsync fails (EINVAL):
    /// writes the device lost. The pipe is closed after the test.
    private func failTheOpenFilesSyncs() throws {
        let descriptor = try XCTUnwrap(journalFileDescriptor(), "a segment file is open")
        var pipeEnds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&pipeEnds), 0)
        let reading = pipeEnds[0]
        addTeardownBlock { close(reading) }
        XCTAssertEqual(dup2(pipeEnds[1], descriptor), descriptor)
        close(pipeEnds[1])
    }

    /// A sync that failed is not forgotten when a later one, of a new file, succeeds: the items of
    /// the file that failed may be lost at a crash, so `flushJournal()` keeps failing until they
    /// have been answered.
    func testAFailedSyncKeepsFlushesFailingUntilItsItemsAreAnswered() throws {
        let journal = journal(.everyCommit)
        journal.queue(event("a"))
        journal.commit(at: now)
        try failTheOpenFilesSyncs()
        journal.queue(event("b"))
        journal.commit(at: now)  // b's sync fails; the file is closed
        journal.queue(event("c"))
        journal.commit(at: now)  // c's, in a new file, succeeds
        XCTAssertThrowsError(try journal.syncForFlush(at: now).get(), "b was never synced")
        journal.acknowledge(2)  // a and b answered: nothing unsynced is waiting any more
        XCTAssertNoThrow(try journal.syncForFlush(at: now).get())
    }

    /// The items of a file whose sync failed are for the state file to hold at stop: the device
    /// may have dropped them, and a clean stop must not leave them in neither file.
    func testTheItemsOfAFileWhoseSyncFailedAreForTheStateFileToHold() throws {
        let journal = journal(.everyCommit)
        journal.queue(event("a"))
        journal.commit(at: now)
        try failTheOpenFilesSyncs()
        journal.queue(event("b"))
        journal.commit(at: now)  // the sync of the file holding a and b fails
        journal.finish(at: now)
        XCTAssertEqual(journal.itemsForTheStateFile, 2, "a and b are unanswered, in a file whose sync failed")
        journal.acknowledge(2)
        XCTAssertEqual(journal.itemsForTheStateFile, 0)
    }

    /// Only the items from the first of the file whose sync failed are for the state file: an
    /// earlier file's were synced, and the next start replays them from the journal (the state
    /// file holding them too sent them twice).
    func testTheItemsOfFilesSyncedBeforeTheFailedOneAreNotForTheStateFile() throws {
        let journal = EventJournal(
            configuration: JournalConfiguration(durability: .everyCommit, maxBytes: 4_096), recovery: JournalRecovery(directory: directory),
            logger: logs.makeLogger(), counters: counters)
        let filler = JSONValue.string(String(repeating: "x", count: 1_100))
        journal.queue(.event(TrackedEvent(customerIds: ["cookie": "c"], eventType: "z", timestamp: 1, properties: ["p": filler])))
        journal.commit(at: now)
        journal.queue(event("a"))
        journal.commit(at: now)  // the first file is full: a opens the second
        try failTheOpenFilesSyncs()  // the second segment file's
        journal.queue(event("b"))
        journal.commit(at: now)  // the second file's sync fails
        XCTAssertEqual(journal.itemsForTheStateFile, 2, "a and b, not z")
    }

    /// A full disk that refuses the acknowledgement mark does not make every engine turn open a
    /// new segment file and log the same error: the mark waits for the next items to carry it.
    func testAMarkTheDiskRefusesIsNotRetriedEveryTurn() throws {
        let journal = journal(.everyCommit)
        journal.queue(event("a"))
        journal.commit(at: now)
        journal.acknowledge(1)
        withFileSizeLimit(0) {
            for _ in 0..<50 { journal.commit(at: now) }
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { JournalSegmentFile.index(ofName: $0) != nil }
        XCTAssertLessThanOrEqual(names.count, 2, "\(names)")
        XCTAssertLessThanOrEqual(logs.count(prefix: "Segments: Event journal"), 1, "\(logs.messages)")
        journal.queue(event("b"))
        journal.commit(at: now)
        XCTAssertFalse(journal.acknowledgementDue, "the mark went out with b")
    }

    /// An item that cannot be written, staged ahead of one too large for a record, is counted off
    /// with it when both are answered: the journal resumes.
    func testAnItemThatCannotBeWrittenAheadOfATooLargeOneIsCountedOffAndTheJournalResumes() {
        let journal = journal(.everyCommit)
        journal.queue(event("a"))
        let big = JSONValue.string(String(repeating: "x", count: JournalRecord.maxBodySize + 1))
        journal.queue(.event(TrackedEvent(customerIds: ["cookie": "c"], eventType: "big", timestamp: 1, properties: ["p": big])))
        withFileSizeLimit(0) { journal.commit(at: now) }  // a cannot be written
        XCTAssertEqual(journal.memoryOnlyCount, 2, "a and big are for the state file to hold")
        journal.acknowledge(2)
        XCTAssertEqual(journal.memoryOnlyCount, 0)
        XCTAssertNil(journal.unavailable, "the journal resumes once both were answered")
    }

    /// A stop whose acknowledgement mark cannot be written still syncs what the file holds.
    func testAStopWhoseMarkCannotBeWrittenStillSyncsTheLastWrites() {
        let (journal, fsyncs) = journalWithAnUnsyncedWrite()
        withFileSizeLimit(journal.totalBytes) { journal.finish(at: now) }  // the mark cannot be written
        XCTAssertGreaterThan(counters.journalFsyncs.load(ordering: .relaxed), fsyncs, "b was synced before its file was closed")
    }

    /// A file of the next index that appeared after the journal was read (another writer on a
    /// directory it could not lock) is left as it is: the journal writes the index after it.
    func testANewSegmentFileNeverEmptiesAFileAlreadyThere() throws {
        let journal = journal(.everyCommit)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let foreign = directory.appendingPathComponent(JournalSegmentFile.name(index: 1))
        var record: [UInt8] = []
        JournalRecord.item(sequence: 1, event("theirs")).append(to: &record)
        try Data(record).write(to: foreign)
        journal.queue(event("ours"))
        journal.commit(at: now)
        XCTAssertEqual(try Data(contentsOf: foreign), Data(record), "the other writer's file is untouched")
        XCTAssertEqual(replayed().sorted(), ["ours", "theirs"])
    }
}
#endif
