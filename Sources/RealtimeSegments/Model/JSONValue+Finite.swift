/// JSON has no NaN or infinity. A ``JSONValue/number(_:)`` that is not finite encodes as `null`
/// (an encoder would otherwise throw, and an upload or state file carrying one would fail on every
/// retry and hold back everything behind it), and an encoder that carries a ``NonFiniteNumbers``
/// in its `userInfo` learns where, so that its owner can log it.
///
/// The check costs nothing until something is encoded: not in `trackEvent`, where it would walk
/// the properties on the app's thread, nor on the engine thread, where reading a dictionary the
/// app keeps passing would pull its reference count's cache line across cores on every event.
extension JSONValue {
    /// The `userInfo` key for a ``NonFiniteNumbers`` collector.
    package static let nonFiniteNumbersKey = CodingUserInfoKey(rawValue: "RealtimeSegments.nonFiniteNumbers")!

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
package final class NonFiniteNumbers: Sendable {
    private let paths = Locked<[String]>([])

    package init() {}

    /// Each replaced number as its coding path and value (`events[0].properties.price (nan)`),
    /// in encoding order.
    package var recorded: [String] { paths.withLock { $0 } }

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
