import Foundation

/// The credentials of an `authorization` header on the project routes: an API key
/// (`Token <key>` or `Bearer <key>`) or a key pair (`Basic base64(<id>:<secret>)`, RFC 7617).
/// Schemes are case-insensitive, as HTTP auth schemes are.
enum AuthorizationHeader: Hashable, Sendable {
    /// `Token <key>` or `Bearer <key>`.
    case key(String)
    /// `Basic base64(<id>:<secret>)`: the id is everything before the first `:`.
    case basic(id: String, secret: String)

    /// Parses a header value. A missing header, another scheme, or a Basic value that is not
    /// base64 of UTF-8 `<id>:<secret>` is refused with a reason (the server answers 401); this
    /// never traps on any input.
    static func parse(_ value: String?) throws(RequestValidation.Rejection) -> AuthorizationHeader {
        guard let value, !value.isEmpty else { throw .init(reason: "missing authorization") }
        let scheme: Substring
        let rest: Substring
        if let space = value.firstIndex(of: " ") {
            scheme = value[..<space]
            rest = value[value.index(after: space)...].drop(while: { $0 == " " })
        } else {
            scheme = value[...]
            rest = ""
        }
        switch scheme.lowercased() {
        case "token", "bearer":
            return .key(String(rest))
        case "basic":
            return try basic(rest)
        default:
            throw .init(reason: "unsupported authorization scheme (use Token, Bearer or Basic)")
        }
    }

    private static func basic(_ encoded: Substring) throws(RequestValidation.Rejection) -> AuthorizationHeader {
        let token = encoded.trimmingCharacters(in: .whitespaces)
        guard !token.isEmpty else { throw .init(reason: "malformed Basic authorization: no credentials") }
        guard let bytes = Data(base64Encoded: token) else {
            throw .init(reason: "malformed Basic authorization: not base64")
        }
        guard let text = String(data: bytes, encoding: .utf8) else {
            throw .init(reason: "malformed Basic authorization: credentials are not UTF-8")
        }
        guard let colon = text.firstIndex(of: ":") else {
            throw .init(reason: "malformed Basic authorization: expected <key id>:<secret>")
        }
        return .basic(id: String(text[..<colon]), secret: String(text[text.index(after: colon)...]))
    }
}
