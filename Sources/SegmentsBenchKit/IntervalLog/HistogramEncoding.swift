import Foundation
import Histogram

/// HdrHistogram's V2 binary encoding, the form interval logs carry and every HdrHistogram
/// implementation (Java, C, Python, Go, Rust) reads.
///
/// The plain form (cookie `0x1c849313`): big-endian cookie, counts payload length, normalizing
/// index offset (0), significant digits, lowest discernible value, highest trackable value and
/// the integer-to-double ratio (1.0), then the counts array from index 0 to that of the largest
/// value, each count as a ZigZag LEB128 integer and each run of two or more zero counts as its
/// negated length. The compressed form (cookie `0x1c849314`): cookie, length, then the plain form
/// deflated (zlib). The cookies carry HdrHistogram's word-size nibble `0x10` as the Java and C
/// writers do; readers compare them with that nibble masked off.
public enum HistogramEncoding {
    static let plainCookie: UInt32 = 0x1C84_9313
    static let compressedCookie: UInt32 = 0x1C84_9314
    static let cookieMask: UInt32 = ~0xF0
    /// The most bytes a plain payload may inflate to (a hostile file cannot make reading allocate
    /// more): far above the ~30,000 counters of a 1 ns to 60 s, 3-digit histogram at 9 bytes each.
    static let inflatedLimit = 4 << 20

    /// The plain (uncompressed) V2 form of `histogram`.
    public static func plain(_ histogram: Histogram<UInt64>) -> [UInt8] {
        let layout = HistogramLayout(histogram)
        var counts: [UInt8] = []
        var nextIndex = 0
        func appendZeros(upTo index: Int) {
            let zeros = index - nextIndex
            if zeros == 1 {
                ZigZagLEB128.append(0, to: &counts)
            } else if zeros > 1 {
                ZigZagLEB128.append(-Int64(zeros), to: &counts)
            }
        }
        for step in histogram.recordedValues() {
            let index = layout.index(of: step.value)
            appendZeros(upTo: index)
            ZigZagLEB128.append(Int64(clamping: step.count), to: &counts)
            nextIndex = index + 1
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(40 + counts.count)
        appendBigEndian(plainCookie, to: &bytes)
        appendBigEndian(UInt32(counts.count), to: &bytes)
        appendBigEndian(UInt32(0), to: &bytes)
        appendBigEndian(UInt32(histogram.numberOfSignificantValueDigits.rawValue), to: &bytes)
        appendBigEndian(histogram.lowestDiscernibleValue, to: &bytes)
        appendBigEndian(histogram.highestTrackableValue, to: &bytes)
        appendBigEndian((1.0 as Double).bitPattern, to: &bytes)
        return bytes + counts
    }

    /// The compressed V2 form of `histogram`.
    ///
    /// - Throws: ``IntervalLogError/zlib(_:)`` when zlib fails.
    public static func compressed(_ histogram: Histogram<UInt64>) throws -> [UInt8] {
        let deflated = try Zlib.compress(plain(histogram))
        var bytes: [UInt8] = []
        bytes.reserveCapacity(8 + deflated.count)
        appendBigEndian(compressedCookie, to: &bytes)
        appendBigEndian(UInt32(deflated.count), to: &bytes)
        return bytes + deflated
    }

    /// The compressed V2 form of `histogram` in base64, as an interval log line carries it.
    ///
    /// - Throws: ``IntervalLogError/zlib(_:)`` when zlib fails.
    public static func base64(_ histogram: Histogram<UInt64>) throws -> String {
        Data(try compressed(histogram)).base64EncodedString()
    }

    /// Decodes the base64 text of a compressed (or plain) V2 histogram into one with the layout of
    /// ``LatencyRecorder`` (1 ns to 60 s, 3 significant digits), so that it adds to the harness's
    /// histograms. Counts above 60 s are clamped to it, as ``LatencyRecorder`` records them.
    ///
    /// - Throws: ``IntervalLogError`` for text that is not such a histogram, or one recorded with
    ///   another lowest value or precision (its counts would not add exactly).
    public static func decode(base64 text: Substring) throws -> Histogram<UInt64> {
        guard let data = Data(base64Encoded: String(text)) else { throw IntervalLogError.notBase64 }
        return try decode([UInt8](data))
    }

    /// Decodes a compressed or plain V2 histogram; see ``decode(base64:)``.
    public static func decode(_ bytes: [UInt8]) throws -> Histogram<UInt64> {
        guard bytes.count >= 8 else { throw IntervalLogError.truncated("header") }
        let cookie = readBigEndian(UInt32.self, bytes, at: 0)
        switch cookie & cookieMask {
        case compressedCookie & cookieMask:
            let length = Int(readBigEndian(UInt32.self, bytes, at: 4))
            guard bytes.count - 8 >= length else { throw IntervalLogError.truncated("compressed histogram") }
            return try decodePlain(Zlib.decompress(Array(bytes[8..<(8 + length)]), limit: inflatedLimit))
        case plainCookie & cookieMask:
            return try decodePlain(bytes)
        default:
            throw IntervalLogError.unknownCookie(cookie)
        }
    }

    private static func decodePlain(_ bytes: [UInt8]) throws -> Histogram<UInt64> {
        guard bytes.count >= 40 else { throw IntervalLogError.truncated("header") }
        let cookie = readBigEndian(UInt32.self, bytes, at: 0)
        guard cookie & cookieMask == plainCookie & cookieMask else { throw IntervalLogError.unknownCookie(cookie) }
        let length = Int(readBigEndian(UInt32.self, bytes, at: 4))
        let offset = readBigEndian(UInt32.self, bytes, at: 8)
        let digits = Int32(bitPattern: readBigEndian(UInt32.self, bytes, at: 12))
        let lowest = readBigEndian(UInt64.self, bytes, at: 16)
        let highest = readBigEndian(UInt64.self, bytes, at: 24)
        guard lowest == 1, digits == 3, offset == 0,
              let layout = HistogramLayout(lowestDiscernibleValue: lowest, significantDigits: Int(digits), highestTrackableValue: highest)
        else { throw IntervalLogError.unsupportedLayout(lowest: lowest, significantDigits: digits) }
        guard bytes.count - 40 >= length else { throw IntervalLogError.truncated("counts") }

        var recorder = LatencyRecorder()
        try bytes[40..<(40 + length)].withUnsafeBytes { counts in
            var position = 0
            var index = 0
            while position < counts.count {
                let value = try ZigZagLEB128.read(counts, at: &position)
                if value < 0 {
                    guard value != .min, -value <= Int64(layout.countsLength) else { throw IntervalLogError.malformedCounts }
                    index += Int(-value)
                    continue
                }
                guard index < layout.countsLength else { throw IntervalLogError.countOutOfRange(index: index) }
                if value > 0 { recorder.record(layout.value(at: index), count: UInt64(value)) }
                index += 1
            }
        }
        return recorder.histogram
    }

    private static func appendBigEndian<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    private static func readBigEndian<T: FixedWidthInteger>(_: T.Type, _ bytes: [UInt8], at offset: Int) -> T {
        var value: T = 0
        for byte in bytes[offset..<(offset + MemoryLayout<T>.size)] {
            value = value << 8 | T(byte)
        }
        return value
    }
}
