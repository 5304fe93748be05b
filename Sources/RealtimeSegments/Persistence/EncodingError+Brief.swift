extension EncodingError {
    /// What went wrong, without the value: the error's own description holds the whole value that
    /// failed, thousands of characters for deeply nested properties, too much for a log line.
    var briefDescription: String {
        switch self {
        case .invalidValue(_, let context):
            let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return path.isEmpty ? context.debugDescription : "\(context.debugDescription) (at \(path))"
        @unknown default:
            return "an encoding error"
        }
    }
}
