/// Why an encoded histogram or an interval log could not be read or written.
public enum IntervalLogError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The text is not base64.
    case notBase64
    /// The bytes end before the structure they announce.
    case truncated(String)
    /// A cookie that is not HdrHistogram's V2 (compressed or plain) encoding.
    case unknownCookie(UInt32)
    /// zlib refused the data (its return code).
    case zlib(Int32)
    /// A histogram layout this harness does not record with (its lowest value, significant digits).
    case unsupportedLayout(lowest: UInt64, significantDigits: Int32)
    /// A count that lands outside the histogram the header describes.
    case countOutOfRange(index: Int)
    /// A negative count or a run of zeros that is not negative.
    case malformedCounts

    public var description: String {
        switch self {
        case .notBase64: "Segments: interval log: histogram is not base64"
        case let .truncated(what): "Segments: interval log: truncated \(what)"
        case let .unknownCookie(cookie): "Segments: interval log: unknown cookie 0x\(String(cookie, radix: 16))"
        case let .zlib(code): "Segments: interval log: zlib error \(code)"
        case let .unsupportedLayout(lowest, digits):
            "Segments: interval log: unsupported histogram layout (lowest \(lowest), \(digits) significant digits)"
        case let .countOutOfRange(index): "Segments: interval log: count at index \(index) is outside the histogram"
        case .malformedCounts: "Segments: interval log: malformed counts"
        }
    }
}
