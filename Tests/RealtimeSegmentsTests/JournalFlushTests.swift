@_spi(Benchmarks) @testable import RealtimeSegments
import Foundation
import RealtimeSegmentsTesting
import XCTest

/// `flushJournal()`: when it returns, what it syncs, and when it throws; and the durability
/// policies' fsyncs, on the manual clock.
final class JournalFlushTests: XCTestCase {
    private var directory: URL!

    override func setUp() {
        directory = temporaryDirectory()
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: directory)
    }

    private func journaled(_ durability: JournalConfiguration.Durability = .everyCommit, maxBytes: Int = 64 << 20) -> Fixture {
        Fixture(stateDirectory: directory) { $0.journal = JournalConfiguration(durability: durability, maxBytes: maxBytes) }
    }

    func testFlushJournalReturnsOnlyOnceEverythingTrackedBeforeItIsWritten() async throws {
        let fixture = journaled()
        fixture.client.start()
        for index in 0..<3_000 { try fixture.client.trackEvent(eventType: "e\(index)") }
        try await fixture.client.flushJournal()
        XCTAssertGreaterThanOrEqual(fixture.client.journalStatistics.itemsWritten, 3_000)
    }

    /// The flush covers what other threads tracked before it, not only the caller's own calls.
    func testFlushJournalCoversEventsAnotherThreadTrackedBeforeIt() async throws {
        let fixture = journaled()
        fixture.client.start()
        let client = fixture.client
        onAnotherThread {
            for index in 0..<3_000 { try? client.trackEvent(eventType: "e\(index)") }
        }
        try await fixture.client.flushJournal()
        XCTAssertGreaterThanOrEqual(fixture.client.journalStatistics.itemsWritten, 3_000)
    }

    /// A customer change made before `flushJournal()` is on disk when it returns, as the events
    /// are: the state file holds the customer. A process that died just after the flush must not
    /// restart as the customer an `anonymize()` left, stamping events with the registered ids.
    /// (The completion is the one `flushJournal()` resumes with, run on the engine thread as the
    /// flush is answered: what it reads is what was on disk at that moment. The turn that takes
    /// the `anonymize()` from the ring is held until the flush is posted, so both are handled in
    /// that one turn, where the order of the write and the answer shows.)
    func testAFlushAnswersOnlyOnceTheCustomerItFollowsIsInTheStateFile() throws {
        let holdNextTurn = Locked(false)
        let drained = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let fixture = Fixture(stateDirectory: directory) {
            $0.journal = JournalConfiguration(durability: .everyCommit)
            $0.turnDrainedForTesting = {
                guard holdNextTurn.withLock({ hold in defer { hold = false }; return hold }) else { return }
                drained.signal()
                proceed.wait()
            }
        }
        fixture.client.start()
        try fixture.client.identifyCustomer(customerIds: ["registered": "jane@example.com"])
        fixture.settle()
        holdNextTurn.withLock { $0 = true }
        fixture.client.anonymize()
        XCTAssertEqual(drained.wait(timeout: .now() + 10), .success, "the turn that took the anonymize() is held")
        let stateFile = directory.appendingPathComponent("segments-state.json")
        let onDiskAtTheAnswer = Locked<[String: String]?>(nil)
        let answered = DispatchSemaphore(value: 0)
        fixture.client.channels.post(.journalFlush(through: fixture.client.channels.ring.claimedPositions, completion: { _ in
            let object = (try? Data(contentsOf: stateFile)).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
            onDiskAtTheAnswer.withLock { $0 = object?["customerIds"] as? [String: String] }
            answered.signal()
        }))
        proceed.signal()
        XCTAssertEqual(answered.wait(timeout: .now() + 10), .success)
        let onDisk = try XCTUnwrap(onDiskAtTheAnswer.withLock { $0 })
        XCTAssertNil(onDisk["registered"], "the flush was answered with the customer anonymize() left still on disk")
        XCTAssertEqual(onDisk["cookie"], fixture.cookie)
    }

    func testEveryCommitSyncsEachGroupCommit() async throws {
        let fixture = journaled()
        fixture.transport.failNext(.trackEvents, with: .timeout, count: 100)  // no acknowledgement marks
        fixture.client.start()
        try fixture.client.trackEvent(eventType: "a")
        fixture.settle()
        let first = fixture.client.journalStatistics
        XCTAssertEqual(first.writes, 1)
        try fixture.client.trackEvent(eventType: "b")
        fixture.settle()
        let second = fixture.client.journalStatistics
        XCTAssertEqual(second.writes, 2)
        XCTAssertEqual(second.fsyncs, first.fsyncs + 1)
    }

    func testWithAnIntervalTheIntervalOrAFlushJournalSyncs() async throws {
        let fixture = journaled(.interval(milliseconds: 1_000))
        fixture.transport.failNext(.trackEvents, with: .timeout, count: 100)
        fixture.client.start()
        try fixture.client.trackEvent(eventType: "a")  // the first commit syncs: no sync before it
        fixture.settle()
        let start = fixture.client.journalStatistics.fsyncs

        try fixture.client.trackEvent(eventType: "b")
        fixture.settle()
        XCTAssertEqual(fixture.client.journalStatistics.fsyncs, start, "within the interval: written, not synced")
        try await fixture.client.flushJournal()
        XCTAssertEqual(fixture.client.journalStatistics.fsyncs, start + 1, "flushJournal syncs whatever the interval")

        try fixture.client.trackEvent(eventType: "c")
        fixture.settle()
        XCTAssertEqual(fixture.client.journalStatistics.fsyncs, start + 1)
        fixture.advance(.seconds(1))
        XCTAssertEqual(fixture.client.journalStatistics.fsyncs, start + 2, "the interval's end syncs the rest")
        XCTAssertEqual(fixture.client.journalStatistics.writes, 3)
    }

    /// A segment file closed because it is full is synced as it closes: a sync covers only the
    /// file being written, so a file closed with writes the interval had not synced yet was never
    /// synced, and `flushJournal()` returned without its events on disk.
    func testAFileClosedWithinTheIntervalIsSyncedAsItCloses() async throws {
        // 4 KiB cap: 1 KiB segments, so each of these events fills one.
        let fixture = journaled(.interval(milliseconds: 1_000), maxBytes: 4_096)
        fixture.transport.failNext(.trackEvents, with: .timeout, count: 100)
        fixture.client.start()
        let padding = JSONValue.string(String(repeating: "x", count: 1_100))
        try fixture.client.trackEvent(eventType: "a", properties: ["padding": padding])  // file 1, synced: the first commit
        fixture.settle()
        let start = fixture.client.journalStatistics.fsyncs
        try fixture.client.trackEvent(eventType: "b", properties: ["padding": padding])  // file 2, within the interval
        fixture.settle()
        try fixture.client.trackEvent(eventType: "c", properties: ["padding": padding])  // file 3: file 2 closes
        fixture.settle()
        try await fixture.client.flushJournal()
        // Files 2 and 3 each sync the directory as they are made; then file 2 as it closes, and
        // file 3 for flushJournal.
        XCTAssertEqual(fixture.client.journalStatistics.fsyncs - start, 4)
    }

    func testFlushJournalWithNothingTrackedReturns() async throws {
        let fixture = journaled()
        fixture.client.start()
        try await fixture.client.flushJournal()
    }

    func testFlushJournalThrowsWithoutAJournalBeforeStartAndAfterStop() async {
        let plain = Fixture(stateDirectory: directory)
        plain.client.start()
        await assertThrows(.journalUnavailable, plain.client)
        plain.client.stop()  // gives the directory to the journaled client

        let fixture = journaled()
        await assertThrows(.notStarted, fixture.client)
        fixture.client.start()
        fixture.client.stop()
        await assertThrows(.stopped, fixture.client)
    }

    private enum Expected { case journalUnavailable, notStarted, stopped }

    private func assertThrows(_ expected: Expected, _ client: SegmentsClient, line: UInt = #line) async {
        do {
            try await client.flushJournal()
            XCTFail("flushJournal returned", line: line)
        } catch {
            switch (expected, error) {
            case (.journalUnavailable, .journalUnavailable), (.notStarted, .notStarted), (.stopped, .stopped): break
            default: XCTFail("\(error)", line: line)
            }
        }
    }
}
