@testable import RealtimeSegments
import Foundation
import RealtimeSegmentsTesting
import XCTest

/// The event journal's directory as a start finds it after accidents or tampering: names and
/// records at the end of the number range, a segment file that cannot be read, and marks of what
/// the server answered that must outlive the files they answer for.
final class JournalHostileFilesTests: XCTestCase {
    private var directory: URL!

    override func setUp() {
        directory = temporaryDirectory()
        try? FileManager.default.createDirectory(at: journalDirectory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: directory)
    }

    private var journalDirectory: URL { JournalRecovery.directory(in: directory) }

    private func journaled(_ journal: JournalConfiguration = JournalConfiguration(), configure: (inout SegmentsConfiguration) -> Void = { _ in }) -> Fixture {
        Fixture(stateDirectory: directory) {
            $0.journal = journal
            configure(&$0)
        }
    }

    private func segmentFile(_ index: UInt64) -> URL {
        journalDirectory.appendingPathComponent(JournalSegmentFile.name(index: index))
    }

    private func record(_ record: JournalRecord) -> [UInt8] {
        var bytes: [UInt8] = []
        record.append(to: &bytes)
        return bytes
    }

    private func event(_ type: String) -> UploadItem {
        .event(TrackedEvent(customerIds: ["cookie": "c"], eventType: type, timestamp: 1_700_000_000, properties: [:]))
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

    func testASegmentFileNamedForTheLastIndexIsLeftAloneAndTheJournalWorks() async throws {
        let name = "events-18446744073709551615.journal"
        FileManager.default.createFile(atPath: journalDirectory.appendingPathComponent(name).path, contents: Data())
        let fixture = journaled()
        fixture.client.start()
        await trackAndFlush(fixture, "a")
        XCTAssertEqual(fixture.transport.trackedEvents.map(\.eventType), ["a"])
        XCTAssertEqual(fixture.logs.count(prefix: "Segments: Event journal file \(name) is not one this journal wrote"), 1)
    }

    func testARecordNumberedAtTheEndOfTheRangeIsADamagedTailNotACrash() async throws {
        let bytes = record(.item(sequence: 1, event("kept"))) + record(.item(sequence: .max, event("forged")))
        FileManager.default.createFile(atPath: segmentFile(1).path, contents: Data(bytes))
        let fixture = journaled()
        fixture.client.start()
        await trackAndFlush(fixture, "new")
        XCTAssertEqual(fixture.transport.trackedEvents.map(\.eventType), ["kept", "new"])
        XCTAssertEqual(fixture.logs.count(prefix: "Segments: Event journal file \(segmentFile(1).lastPathComponent) has a damaged tail"), 1)

        fixture.client.stop()
        try FileManager.default.removeItem(at: journalDirectory)
        try FileManager.default.createDirectory(at: journalDirectory, withIntermediateDirectories: true)
        let acknowledged = record(.item(sequence: 1, event("kept"))) + record(.acknowledged(through: .max))
        FileManager.default.createFile(atPath: segmentFile(1).path, contents: Data(acknowledged))
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
        FileManager.default.createFile(atPath: segmentFile(1).path, contents: Data(bytes))
        let fixture = journaled()
        fixture.client.start()
        fixture.settle()
        XCTAssertEqual(fixture.transport.trackedEvents.map(\.eventType), ["after"])
        XCTAssertEqual(fixture.logs.count(prefix: "Segments: Event journal file \(segmentFile(1).lastPathComponent) has a record at byte 0 that cannot be read"), 1)
    }

    /// A segment file that cannot be read keeps its name: the journal's next file takes another,
    /// where it used to open (and truncate) the same one.
    func testAnUnreadableSegmentFileKeepsItsNameAndTheJournalWritesPastIt() async throws {
        FileManager.default.createFile(atPath: segmentFile(1).path, contents: Data(record(.item(sequence: 1, event("old")))))
        try FileManager.default.createDirectory(at: segmentFile(2), withIntermediateDirectories: false)  // unreadable as a file
        let fixture = journaled()
        fixture.transport.failNext(.trackEvents, with: .timeout, count: 1_000)
        fixture.client.start()
        try fixture.client.trackEvent(eventType: "new")
        try await fixture.client.flushJournal()
        XCTAssertTrue(FileManager.default.fileExists(atPath: segmentFile(3).path), "the journal wrote past the unreadable name")
        XCTAssertEqual(fixture.logs.count(prefix: "Segments: Event journal paused"), 0)
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
