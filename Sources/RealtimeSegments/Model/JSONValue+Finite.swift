import Foundation

/// JSON has no NaN or infinity. A ``JSONValue/number(_:)`` that is not finite encodes as `null`
/// (an encoder would otherwise throw, and an upload or state file carrying one would fail on every
/// retry and hold back everything behind it), and an encoder that carries a ``NonFiniteNumbers``
/// in its `userInfo` learns where, so that its owner can log it.
///
/// The check costs nothing until something is encoded: not in `trackEvent`, where it would walk
/// the properties on the app's thread, nor on the engine thread, where reading a dictionary the
/// app keeps passing would pull its reference count's cache line across cores on every event.
extension JSONValue {
    /// The `userInfo` key for a ``NonFiniteNumbers`` collector: for a transport of your own that
    /// encodes JSON and wants to log what was sent as `null` (or use ``NonFiniteNumbers/encode(_:)``).
    public static let nonFiniteNumbersKey = CodingUserInfoKey(rawValue: "RealtimeSegments.nonFiniteNumbers")!

    /// The path of the first number in `properties` that is not finite (`price (nan)`,
    /// `items[2].weight (inf)`), or `nil`. For arguments checked at the call.
    static func firstNonFiniteNumber(in properties: [String: JSONValue]) -> String? {
        properties.keys.sorted().lazy.compactMap { key in properties[key]?.firstNonFiniteNumber(at: key) }.first
    }

    private func firstNonFiniteNumber(at path: String) -> String? {
        switch self {
        case .number(let value): value.isFinite ? nil : "\(path) (\(value))"
        case .array(let elements):
            elements.indices.lazy.compactMap { elements[$0].firstNonFiniteNumber(at: "\(path)[\($0)]") }.first
        case .object(let members):
            members.keys.sorted().lazy.compactMap { key in members[key]?.firstNonFiniteNumber(at: "\(path).\(key)") }.first
        case .string, .bool, .null: nil
        }
    }
}

/// Where an encoding replaced numbers that JSON cannot carry with `null` (see
/// ``JSONValue/nonFiniteNumbersKey``). Threading: any thread.
public final class NonFiniteNumbers: Sendable {
    private let paths = Locked<[String]>([])

    /// Creates an empty collector.
    public init() {}

    /// Each replaced number as its coding path and value (`events[0].properties.price (nan)`),
    /// in encoding order.
    public var recorded: [String] { paths.withLock { $0 } }

    /// Encodes `value` as JSON with sorted keys, as the HTTP transport and the state file do, and
    /// returns where numbers JSON cannot carry were written as `null`, for the caller to log.
    ///
    /// - Throws: what `JSONEncoder` throws for values other than ``JSONValue`` numbers.
    public static func encode(_ value: some Encodable) throws -> (data: Data, replaced: [String]) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let collector = NonFiniteNumbers()
        encoder.userInfo[JSONValue.nonFiniteNumbersKey] = collector
        let data = try encoder.encode(value)
        return (data, collector.recorded)
    }

    func record(_ value: Double, at codingPath: [any CodingKey]) {
        var path = ""
        for key in codingPath {
            if let index = key.intValue {
                path += "[\(index)]"
            } else {
                path += path.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        paths.withLock { $0.append("\(path) (\(value))") }
    }
}
