/// The category a segment belongs to, and the unit a callback listens to.
///
/// The three known categories are ``discovery``, ``merchandising`` and ``content``; any other key the
/// server returns is kept as ``other(_:)`` rather than dropped. Names are case-insensitive and the
/// legacy name `merchandise` means ``merchandising`` (``merchandise`` is accepted in the API too), so
/// `SegmentCategory(name: "Merchandise") == .merchandising`.
///
/// A category is a normalized name: building one never fails, but an empty name is not a valid
/// category and is rejected where it is used (``SegmentationManager/addCallback(callbackData:)``
/// logs and ignores it; a response with an empty key is a parse error).
public struct SegmentCategory: Hashable, Sendable, CustomStringConvertible {
    /// The normalized (lower-cased) category name, as sent on the wire.
    public let name: String

    /// Creates a category from a wire name: case-insensitive, `merchandise` maps to `merchandising`.
    public init(name: String) {
        // Wire keys are already lower-case ASCII; `lowercased()` is a visible part of decoding a body.
        let lowered = name.utf8.allSatisfy({ $0 < 0x80 && !(0x41...0x5A).contains($0) }) ? name : name.lowercased()
        self.name = lowered == "merchandise" ? "merchandising" : lowered
    }

    /// Segments used by Bloomreach Discovery search and category results.
    public static let discovery = SegmentCategory(name: "discovery")
    /// Segments used for merchandising.
    public static let merchandising = SegmentCategory(name: "merchandising")
    /// The legacy spelling of ``merchandising``; the same category.
    public static let merchandise = merchandising
    /// Segments used for content personalization.
    public static let content = SegmentCategory(name: "content")

    /// Any other category key the server returns.
    public static func other(_ name: String) -> SegmentCategory { SegmentCategory(name: name) }

    /// The category as an enum, for `switch` statements.
    public enum Kind: Hashable, Sendable {
        case discovery, merchandising, content
        case other(String)
    }

    /// Which of the known categories this is, or `.other(name)`.
    public var kind: Kind {
        switch name {
        case "discovery": .discovery
        case "merchandising": .merchandising
        case "content": .content
        default: .other(name)
        }
    }

    /// `false` for a category built from an empty or blank name.
    public var isValid: Bool { !name.allSatisfy(\.isWhitespace) }

    public var description: String { name }
}
