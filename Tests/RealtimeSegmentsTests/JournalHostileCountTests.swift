#if os(Linux)
@testable import RealtimeSegments
import Foundation
import XCTest

/// A damaged or tampered journal file is read without reserving memory for what its counts claim:
/// only for what the bytes can hold. The test runs under an address-space limit, since on Linux
/// the claimed reservations are address space the kernel grants without backing.
final class JournalHostileCountTests: XCTestCase {
    func testNestedCountsThatEachClaimTheRestOfTheRecordReserveNothingOfThatSize() throws {
        // An event whose one property is arrays nested as deep as the codec reads, each claiming
        // as many elements as bytes are left, padded with 4 MiB of nulls.
        let depth = JournalItemCodec.maxDepth - 1
        var nested = JSONValue.null
        for _ in 0..<depth { nested = .array([nested]) }
        let item = UploadItem.event(TrackedEvent(customerIds: [:], eventType: "", timestamp: 0, properties: ["": nested]))
        var bytes: [UInt8] = []
        JournalItemCodec.append(item, to: &bytes)
        var prefix: [UInt8] = []
        JournalItemCodec.append(.event(TrackedEvent(customerIds: [:], eventType: "", timestamp: 0, properties: ["": .null])), to: &prefix)
        let nullTag = prefix.removeLast()
        bytes.append(contentsOf: repeatElement(nullTag, count: 4 << 20))
        for level in 0..<depth {
            let countOffset = prefix.count + level * 5 + 1
            let rest = UInt32(bytes.count - countOffset - 4)
            withUnsafeBytes(of: rest.littleEndian) { bytes.replaceSubrange(countOffset..<countOffset + 4, with: $0) }
        }

        let restoreLimit = try lowerAddressSpaceLimit(headroom: 8 << 30)
        let decoded: Result<UploadItem, JournalItemCodec.Malformed>
        do {
            defer { restoreLimit() }
            decoded = bytes.withUnsafeBytes { buffer in Result { () throws(JournalItemCodec.Malformed) in try JournalItemCodec.decode(buffer) } }
        }
        guard case .failure = decoded else { return XCTFail("the claimed elements are not there: \(decoded)") }
    }

    /// Lowers this process's address-space limit to what it maps now plus `headroom`; returns the
    /// function that restores it.
    private func lowerAddressSpaceLimit(headroom: Int) throws -> () -> Void {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try XCTUnwrap(status.split(separator: "\n").first { $0.hasPrefix("VmSize:") })
        let kilobytes = try XCTUnwrap(Int(line.split(separator: " ").dropFirst().first { !$0.isEmpty }.map(String.init) ?? ""))
        var previous = rlimit()
        XCTAssertEqual(getrlimit(Int32(RLIMIT_AS.rawValue), &previous), 0)
        var lowered = previous
        lowered.rlim_cur = rlim_t(kilobytes * 1_024 + headroom)
        guard lowered.rlim_cur <= previous.rlim_max else { throw XCTSkip("the hard address-space limit is below the test's") }
        XCTAssertEqual(setrlimit(Int32(RLIMIT_AS.rawValue), &lowered), 0)
        return { var restored = previous; _ = setrlimit(Int32(RLIMIT_AS.rawValue), &restored) }
    }
}
#endif
