/// A private API key of a mock project: the key id and secret that Exponea's private access sends
/// as HTTP Basic credentials (`authorization: Basic base64(<id>:<secret>)`).
public struct MockKeyPair: Sendable, Hashable {
    /// The API key id (the Basic user name). It cannot contain `:`, which ends the user name.
    public var id: String
    /// The API secret (the Basic password).
    public var secret: String

    /// Creates a key pair.
    public init(id: String, secret: String) {
        self.id = id
        self.secret = secret
    }
}
