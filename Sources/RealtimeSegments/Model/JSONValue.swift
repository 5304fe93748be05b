/// A JSON value: the type of event and customer properties.
///
/// Literals work directly: `["price": 9.99, "sku": "A-1", "tags": ["x"], "gift": true]`.
public enum JSONValue: Hashable, Sendable, Codable {
    /// A string.
    case string(String)
    /// A number. One that is not finite is sent as `null` (see ``encode(to:)``).
    case number(Double)
    /// `true` or `false`.
    case bool(Bool)
    /// An array.
    case array([JSONValue])
    /// An object.
    case object([String: JSONValue])
    /// `null`.
    case null

    /// Decodes any JSON value.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// Encodes the value as JSON. A number that is not finite (NaN, an infinity), which JSON cannot
    /// carry, is encoded as `null`; the HTTP transport and the state file log a `Segments:` error
    /// naming where.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .number(let value) where !value.isFinite:
            (encoder.userInfo[Self.nonFiniteNumbersKey] as? NonFiniteNumbers)?.record(value, at: encoder.codingPath)
            try container.encodeNil()
        case .number(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        case .null: try container.encodeNil()
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByFloatLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    /// `"text"` is `.string("text")`.
    public init(stringLiteral value: String) { self = .string(value) }
    /// `9.99` is `.number(9.99)`.
    public init(floatLiteral value: Double) { self = .number(value) }
    /// `3` is `.number(3)`.
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    /// `true` is `.bool(true)`.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// `[1, "a"]` is `.array([.number(1), .string("a")])`.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// `["k": 1]` is `.object(["k": .number(1)])`; a repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    /// `nil` is `.null`.
    public init(nilLiteral: ()) { self = .null }
}
