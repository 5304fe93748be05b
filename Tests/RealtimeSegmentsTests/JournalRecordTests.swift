@testable import RealtimeSegments
import Foundation
import XCTest

/// The journal's record codec: framing, checksum, item encoding, and what a torn or damaged file
/// reads as.
final class JournalRecordTests: XCTestCase {
    private let event = UploadItem.event(TrackedEvent(
        customerIds: ["cookie": "c-1", "registered": "jane@example.com"], eventType: "view_item", timestamp: 1_700_000_000.25,
        properties: [
            "sku": "A-1", "price": 9.99, "gift": true, "note": .null, "tags": ["x", 1, ["nested": false]],
            "naïve": .string("ünïcødé ✓"), "nan": .number(.nan),
        ]))
    private let update = UploadItem.customer(CustomerUpdate(customerIds: ["cookie": "c-1"], properties: ["tier": "gold"]))

    func testCRC32MatchesTheStandardCheckValue() {
        XCTAssertEqual(CRC32.checksum(Array("123456789".utf8)), 0xCBF4_3926)
        XCTAssertEqual(CRC32.checksum([UInt8]()), 0)
    }

    func testRecordsReadBackAsWritten() throws {
        let records: [JournalRecord] = [.item(sequence: 1, event), .item(sequence: 2, update), .acknowledged(through: 1)]
        var buffer: [UInt8] = []
        for record in records { record.append(to: &buffer) }
        let read = readAll(buffer)
        XCTAssertNil(read.damage)
        XCTAssertEqual(read.records.count, 3)
        // NaN is not equal to itself: compare the rest, then the NaN's bits.
        guard case .item(1, .event(let decoded)) = read.records[0], case .event(let original) = event else {
            return XCTFail("first record: \(read.records[0])")
        }
        XCTAssertEqual(decoded.customerIds, original.customerIds)
        XCTAssertEqual(decoded.eventType, original.eventType)
        XCTAssertEqual(decoded.timestamp, original.timestamp)
        XCTAssertEqual(decoded.properties.filter { $0.key != "nan" }, original.properties.filter { $0.key != "nan" })
        guard case .number(let nan) = decoded.properties["nan"] else { return XCTFail("nan: \(String(describing: decoded.properties["nan"]))") }
        XCTAssertTrue(nan.isNaN)
        XCTAssertEqual(Array(read.records[1...]), [.item(sequence: 2, update), .acknowledged(through: 1)])
    }

    func testAChangedByteFailsTheChecksum() {
        var buffer: [UInt8] = []
        JournalRecord.item(sequence: 7, update).append(to: &buffer)
        for offset in JournalRecord.headerSize..<buffer.count {
            var damaged = buffer
            damaged[offset] ^= 0x20
            let read = readAll(damaged)
            XCTAssertEqual(read.records, [], "byte \(offset)")
            XCTAssertEqual(read.damage?.contains("checksum"), true, "byte \(offset): \(read.damage ?? "none")")
        }
    }

    func testEveryCutOfARecordReadsAsATornTailNeverACrash() {
        var buffer: [UInt8] = []
        JournalRecord.item(sequence: 1, event).append(to: &buffer)
        let whole = buffer.count
        JournalRecord.item(sequence: 2, update).append(to: &buffer)
        for cut in whole..<buffer.count {
            let read = readAll(Array(buffer[..<cut]))
            XCTAssertEqual(read.records.count, 1, "cut at \(cut)")
            if cut == whole {
                XCTAssertNil(read.damage)
            } else {
                XCTAssertNotNil(read.damage, "cut at \(cut)")
            }
        }
    }

    func testAnImpossibleLengthIsDamageNotAnAllocation() {
        var buffer: [UInt8] = [0xFF, 0xFF, 0xFF, 0x7F, 0, 0, 0, 0]
        buffer += [UInt8](repeating: 1, count: 20)
        XCTAssertEqual(readAll(buffer).damage?.contains("impossible"), true)
    }

    func testATornTailIsSkippedWithALogLineAndTheRecordsBeforeItAreReplayed() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var buffer: [UInt8] = []
        JournalRecord.item(sequence: 1, update).append(to: &buffer)
        JournalRecord.item(sequence: 2, event).append(to: &buffer)
        JournalRecord.acknowledged(through: 1).append(to: &buffer)
        JournalRecord.item(sequence: 3, update).append(to: &buffer)
        let torn = Array(buffer[..<(buffer.count - 5)])
        try Data(torn).write(to: directory.appendingPathComponent(JournalSegmentFile.name(index: 1)))
        let logs = LogCapture()

        let recovery = JournalRecovery.read(directory: directory, logger: logs.makeLogger())

        XCTAssertEqual(recovery.entries.map(\.sequence), [2], "1 was acknowledged; 3 was torn")
        XCTAssertEqual(recovery.acknowledgedThrough, 1)
        XCTAssertEqual(recovery.segments.map(\.lastSequence), [2])
        XCTAssertEqual(logs.count(prefix: "Segments: Event journal file \(JournalSegmentFile.name(index: 1)) has a damaged tail"), 1)
    }

    func testSegmentNamesSortByIndexAndOtherFilesAreIgnored() {
        XCTAssertEqual(JournalSegmentFile.index(ofName: JournalSegmentFile.name(index: 42)), 42)
        XCTAssertLessThan(JournalSegmentFile.name(index: 9), JournalSegmentFile.name(index: 10))
        XCTAssertNil(JournalSegmentFile.index(ofName: "segments-state.json"))
        XCTAssertNil(JournalSegmentFile.index(ofName: "events-x.journal"))
    }

    private func readAll(_ buffer: [UInt8]) -> (records: [JournalRecord], damage: String?) {
        buffer.withUnsafeBytes { bytes in
            var records: [JournalRecord] = []
            var offset = 0
            while true {
                switch JournalRecord.decode(bytes, at: offset) {
                case .end: return (records, nil)
                case .damaged(let reason): return (records, reason)
                case .unreadable(let reason, _): return (records, reason)
                case .newerFormat(let what): return (records, what)
                case .record(let record, let next):
                    records.append(record)
                    offset = next
                }
            }
        }
    }
}
