@testable import RealtimeSegments
import Foundation
import Logging
import XCTest

/// The journal at its cap: what the server answered before a clean stop is still recorded, so
/// the next start does not send it again.
final class EventJournalCapTests: XCTestCase {
    private var directory: URL!

    override func setUp() {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("journal-cap-\(UUID().uuidString)")
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: directory)
    }

    /// An event whose journal record takes exactly `recordSize` bytes.
    private func event(_ type: String, recordSize: Int) -> UploadItem {
        func item(padding: Int) -> UploadItem {
            .event(TrackedEvent(customerIds: ["cookie": "c"], eventType: type, timestamp: 1,
                                properties: ["padding": .string(String(repeating: "x", count: padding))]))
        }
        var bytes: [UInt8] = []
        JournalRecord.item(sequence: 1, item(padding: 0)).append(to: &bytes)
        return item(padding: recordSize - bytes.count)
    }

    func testAnswersBeforeACleanStopAreRecordedEvenWhenTheMarkDoesNotFitUnderTheCap() {
        let cap = 4_096
        let journal = EventJournal(
            configuration: JournalConfiguration(maxBytes: cap), recovery: JournalRecovery(directory: directory),
            logger: Logger(label: "EventJournalCapTests"), counters: EngineCounters())
        // Four records fill the cap to within less than a mark's size.
        let recordSize = (cap - EventJournal.acknowledgementSize + 1) / 4
        for index in 0..<4 { journal.queue(event("e\(index)", recordSize: recordSize)) }
        let now = SegmentsInstant(nanoseconds: 1)
        journal.commit(at: now)
        XCTAssertEqual(journal.totalBytes, 4 * recordSize)
        XCTAssertGreaterThan(journal.totalBytes + EventJournal.acknowledgementSize, cap)

        journal.acknowledge(2)  // e0 and e1 answered; e2 and e3 wait
        journal.commit(at: now)
        journal.finish(at: now)

        let recovery = JournalRecovery.read(directory: directory, logger: Logger(label: "EventJournalCapTests"))
        let types = recovery.entries.map { entry -> String in
            guard case .event(let event) = entry.item else { return "?" }
            return event.eventType
        }
        XCTAssertEqual(types, ["e2", "e3"], "e0 and e1 were answered before the stop")
    }
}
