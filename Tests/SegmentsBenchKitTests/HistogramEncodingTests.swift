import CSegmentsZlib
import Foundation
import Histogram
@testable import SegmentsBenchKit
import XCTest

/// HdrHistogram's V2 encoding: the bytes other implementations expect, and round trips through a
/// decoder written here from the format's description (not the harness's own).
final class HistogramEncodingTests: XCTestCase {
    private func histogram(_ values: [(UInt64, UInt64)]) -> Histogram<UInt64> {
        var recorder = LatencyRecorder()
        for (value, count) in values { recorder.record(value, count: count) }
        return recorder.histogram
    }

    func testZigZagLEB128MatchesTheReferenceBytes() {
        let cases: [(Int64, [UInt8])] = [
            (0, [0x00]), (-1, [0x01]), (1, [0x02]), (63, [0x7E]), (64, [0x80, 0x01]), (-998, [0xCB, 0x0F]),
            (Int64.max, [0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
            (Int64.min, [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
        ]
        for (value, bytes) in cases {
            var encoded: [UInt8] = []
            ZigZagLEB128.append(value, to: &encoded)
            XCTAssertEqual(encoded, bytes, "\(value)")
            var offset = 0
            let decoded = encoded.withUnsafeBytes { try? ZigZagLEB128.read($0, at: &offset) }
            XCTAssertEqual(decoded, value)
            XCTAssertEqual(offset, bytes.count)
        }
    }

    /// The plain payload of {1: 1, 1000: 3}, as HdrHistogram's Java encoder lays it out: a single
    /// zero count at index 0 as `00`, a run of 998 zeros as -998.
    func testPlainPayloadMatchesTheKnownBytes() {
        let bytes = HistogramEncoding.plain(histogram([(1, 1), (1000, 3)]))
        let expected: [UInt8] = [
            0x1C, 0x84, 0x93, 0x13, 0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03,
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x0D, 0xF8, 0x47, 0x58, 0x00,
            0x3F, 0xF0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
            0x00, 0x02, 0xCB, 0x0F, 0x06,
        ]
        XCTAssertEqual(bytes, expected)
    }

    func testCompressedFormRoundTripsThroughAnIndependentDecoder() throws {
        var random = SystemRandomNumberGenerator()
        var values: [(UInt64, UInt64)] = [(1, 2), (2047, 1), (2048, 5), (4095, 1), (59_999_999_999, 1)]
        for _ in 0..<2_000 { values.append((UInt64.random(in: 1...5_000_000_000, using: &random), UInt64.random(in: 1...300, using: &random))) }
        let original = histogram(values)
        let text = try HistogramEncoding.base64(original)
        let decoded = try ReferenceDecoder.decode(text)
        XCTAssertEqual(decoded.lowest, 1)
        XCTAssertEqual(decoded.digits, 3)
        XCTAssertEqual(decoded.highest, 60_000_000_000)
        XCTAssertEqual(decoded.counts.reduce(0) { $0 + $1.count }, original.totalCount)
        for (value, count) in decoded.counts {
            XCTAssertEqual(original.countForValue(value), count, "value \(value)")
        }
        XCTAssertEqual(decoded.counts.count, Array(original.recordedValues()).count)
    }

    func testTheHarnessDecoderRestoresTheHistogram() throws {
        let original = histogram([(1, 1), (777, 10), (123_456_789, 3), (60_000_000_000, 1)])
        XCTAssertEqual(try HistogramEncoding.decode(base64: try HistogramEncoding.base64(original)[...]), original)
        XCTAssertEqual(try HistogramEncoding.decode(HistogramEncoding.plain(original)), original)
        let empty = LatencyRecorder().histogram
        XCTAssertEqual(try HistogramEncoding.decode(base64: try HistogramEncoding.base64(empty)[...]).totalCount, 0)
    }

    func testBadInputIsATypedError() throws {
        XCTAssertThrowsError(try HistogramEncoding.decode(base64: "not base64!"[...])) { XCTAssertEqual($0 as? IntervalLogError, .notBase64) }
        XCTAssertThrowsError(try HistogramEncoding.decode([0xDE, 0xAD, 0xBE, 0xEF, 0, 0, 0, 0])) {
            XCTAssertEqual($0 as? IntervalLogError, .unknownCookie(0xDEAD_BEEF))
        }
        let compressed = try HistogramEncoding.compressed(histogram([(5, 5)]))
        XCTAssertThrowsError(try HistogramEncoding.decode(Array(compressed.dropLast(3))))
        var corrupt = compressed
        corrupt[10] ^= 0xFF
        XCTAssertThrowsError(try HistogramEncoding.decode(corrupt))
        var otherLayout = HistogramEncoding.plain(histogram([(5, 5)]))
        otherLayout[15] = 2
        XCTAssertThrowsError(try HistogramEncoding.decode(otherLayout)) {
            XCTAssertEqual($0 as? IntervalLogError, .unsupportedLayout(lowest: 1, significantDigits: 2))
        }
        var runaway = HistogramEncoding.plain(histogram([(5, 5)]))
        runaway.removeLast(runaway.count - 40)
        var counts: [UInt8] = []
        ZigZagLEB128.append(-30_000, to: &counts)
        counts.append(0x02)
        runaway[7] = UInt8(counts.count)
        XCTAssertThrowsError(try HistogramEncoding.decode(runaway + counts))
    }
}

/// A V2 decoder written from the format's description: base64, the compressed wrapper (cookie
/// base 0x1c849304), zlib, the plain header (cookie base 0x1c849303), ZigZag LEB128 counts with
/// negative zero runs; returns each nonzero count with the lowest value of its bucket.
enum ReferenceDecoder {
    struct Decoded {
        var lowest: UInt64
        var highest: UInt64
        var digits: UInt32
        var counts: [(value: UInt64, count: UInt64)]
    }

    struct Failure: Error {}

    static func decode(_ text: String) throws -> Decoded {
        guard let data = Data(base64Encoded: text) else { throw Failure() }
        let bytes = [UInt8](data)
        func u32(_ b: [UInt8], _ at: Int) -> UInt32 { b[at..<at + 4].reduce(0) { $0 << 8 | UInt32($1) } }
        func u64(_ b: [UInt8], _ at: Int) -> UInt64 { b[at..<at + 8].reduce(0) { $0 << 8 | UInt64($1) } }
        guard u32(bytes, 0) & ~0xF0 == 0x1C84_9304 else { throw Failure() }
        let length = Int(u32(bytes, 4))
        var plain = [UInt8](repeating: 0, count: 1 << 20)
        var plainLength = uLong(plain.count)
        let source = Array(bytes[8..<8 + length])
        guard uncompress(&plain, &plainLength, source, uLong(source.count)) == Z_OK else { throw Failure() }
        plain.removeSubrange(Int(plainLength)...)
        guard u32(plain, 0) & ~0xF0 == 0x1C84_9303 else { throw Failure() }
        let payloadLength = Int(u32(plain, 4))
        let digits = u32(plain, 12)
        let lowest = u64(plain, 16)
        let highest = u64(plain, 24)
        // Layout for lowest 1 and 3 digits: 2048 sub-buckets, the upper 1024 of each bucket after the first.
        guard lowest == 1, digits == 3 else { throw Failure() }
        func value(at index: Int) -> UInt64 {
            if index < 2048 { return UInt64(index) }
            let bucket = index / 1024 - 1
            return UInt64(index % 1024 + 1024) << UInt64(bucket)
        }
        var counts: [(UInt64, UInt64)] = []
        var index = 0
        var position = 40
        while position < 40 + payloadLength {
            var raw: UInt64 = 0
            var shift: UInt64 = 0
            for byteNumber in 0..<9 {
                let byte = plain[position]
                position += 1
                if byteNumber == 8 {
                    raw |= UInt64(byte) << 56
                    break
                }
                raw |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 { break }
                shift += 7
            }
            let signed = Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
            if signed < 0 {
                index += Int(-signed)
            } else {
                if signed > 0 { counts.append((value(at: index), UInt64(signed))) }
                index += 1
            }
        }
        return Decoded(lowest: lowest, highest: highest, digits: digits, counts: counts)
    }
}
