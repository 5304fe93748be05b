/// JSON has no NaN or infinity: a `JSONValue.number` that is not finite cannot be encoded, and an
/// upload carrying one would fail on every retry and hold back every event behind it.
extension JSONValue {
    /// `true` if this value is, or contains at any depth, a number that is not finite.
    var holdsNonFiniteNumber: Bool {
        switch self {
        case .number(let value): !value.isFinite
        case .array(let elements): elements.contains { $0.holdsNonFiniteNumber }
        case .object(let members): members.values.contains { $0.holdsNonFiniteNumber }
        case .string, .bool, .null: false
        }
    }

    /// This value with every number that is not finite replaced by `.null`; the path of each one
    /// replaced (`price`, `items[2].weight`) is appended to `paths`.
    func replacingNonFiniteNumbers(at path: String, recordingIn paths: inout [String]) -> JSONValue {
        switch self {
        case .number(let value) where !value.isFinite:
            paths.append("\(path) (\(value))")
            return .null
        case .array(let elements):
            return .array(elements.enumerated().map { index, element in
                element.replacingNonFiniteNumbers(at: "\(path)[\(index)]", recordingIn: &paths)
            })
        case .object(let members):
            return .object(members.replacingNonFiniteNumbers(under: path, recordingIn: &paths))
        default:
            return self
        }
    }

    /// The path of the first number in `properties` that is not finite, with its value, or `nil`.
    static func firstNonFiniteNumber(in properties: [String: JSONValue]) -> String? {
        guard properties.values.contains(where: \.holdsNonFiniteNumber) else { return nil }
        var paths: [String] = []
        _ = properties.replacingNonFiniteNumbers(under: "", recordingIn: &paths)
        return paths.min()
    }
}

extension [String: JSONValue] {
    /// These members with every number that is not finite replaced by `.null` (see
    /// ``JSONValue/replacingNonFiniteNumbers(at:recordingIn:)``). Paths are recorded in
    /// dictionary order; sort them to show them.
    func replacingNonFiniteNumbers(under path: String, recordingIn paths: inout [String]) -> [String: JSONValue] {
        var result = self
        for (key, value) in self where value.holdsNonFiniteNumber {
            result[key] = value.replacingNonFiniteNumbers(at: path.isEmpty ? key : "\(path).\(key)", recordingIn: &paths)
        }
        return result
    }
}
