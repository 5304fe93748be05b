/// The category a segment belongs to, and the unit a callback listens to.
///
/// The three known categories are ``discovery``, ``merchandising`` and ``content``; any other key the
/// server returns is kept as ``other(_:)`` rather than dropped. Names are case-insensitive and the
/// legacy name `merchandise` means ``merchandising`` (``merchandise`` is accepted in the API too), so
/// `SegmentCategory(name: "Merchandise") == .merchandising`.
///
/// Switch over a category like any enum:
///
/// ```swift
/// switch category {
/// case .discovery: showSearchBoosts(segments)
/// case .merchandising: showShelves(segments)
/// case .content: showBanners(segments)
/// case .other(let name): print("segments of \(name):", segments)
/// }
/// ```
///
/// Equality and hashing compare the normalized ``name`` (the wire name), so `.other("Discovery")`
/// equals ``discovery`` and finds the same dictionary entry. A `switch`, though, matches the case a
/// value was built with: categories that come from the engine (callbacks, responses) and from
/// ``init(name:)`` always use the known case for a known name; for a value built with `.other(_:)`
/// from a name you do not control, switch over ``kind``.
///
/// A category is a normalized name: building one never fails, but an empty name is not a valid
/// category and is rejected where it is used (``SegmentationManager/addCallback(callbackData:)``
/// logs and ignores it; a response with an empty key is a parse error).
public enum SegmentCategory: Hashable, Sendable, CustomStringConvertible {
    /// Segments used by Bloomreach Discovery search and category results.
    case discovery
    /// Segments used for merchandising.
    case merchandising
    /// Segments used for content personalization.
    case content
    /// Any other category key the server returns. ``name`` gives it normalized (lower-cased).
    case other(String)

    /// The legacy spelling of ``merchandising``; the same category.
    public static let merchandise = SegmentCategory.merchandising

    /// The category itself. In Exponea's SDK a category carries its segments, so code written for
    /// it names one as a call (`.discovery()`, `.merchandise()`); this lets that code compile
    /// unchanged.
    public func callAsFunction() -> SegmentCategory { self }

    /// Creates a category from a wire name: case-insensitive, `merchandise` maps to `merchandising`,
    /// and a known name gives its known case.
    public init(name: String) {
        let normalized = Self.normalize(name)
        switch normalized {
        case "discovery": self = .discovery
        case "merchandising": self = .merchandising
        case "content": self = .content
        default: self = .other(normalized)
        }
    }

    /// The normalized (lower-cased) category name, as sent on the wire.
    public var name: String {
        switch self {
        case .discovery: "discovery"
        case .merchandising: "merchandising"
        case .content: "content"
        case .other(let name): Self.normalize(name)
        }
    }

    /// The same category in the case ``init(name:)`` gives it: `.other("Discovery").kind` is
    /// ``discovery``. Categories from the engine and from ``init(name:)`` are already in that form.
    public var kind: SegmentCategory {
        if case .other(let name) = self { SegmentCategory(name: name) } else { self }
    }

    /// A synonym of `SegmentCategory`.
    public typealias Kind = SegmentCategory

    /// `false` for a category built from an empty or blank name.
    public var isValid: Bool { !name.allSatisfy(\.isWhitespace) }

    public var description: String { name }

    public static func == (lhs: SegmentCategory, rhs: SegmentCategory) -> Bool {
        switch (lhs, rhs) {
        case (.discovery, .discovery), (.merchandising, .merchandising), (.content, .content): true
        case (.other(let left), .other(let right)): left == right || normalize(left) == normalize(right)
        case (.other(let name), _): normalize(name) == rhs.name
        case (_, .other(let name)): normalize(name) == lhs.name
        default: false
        }
    }

    /// Known categories hash a tag, not their name: categories are dictionary keys in every decode
    /// and diff. `.other` hashes like the category its normalized name stands for.
    public func hash(into hasher: inout Hasher) {
        switch kind {
        case .discovery: hasher.combine(0 as UInt8)
        case .merchandising: hasher.combine(1 as UInt8)
        case .content: hasher.combine(2 as UInt8)
        case .other(let name):
            hasher.combine(3 as UInt8)
            hasher.combine(name)
        }
    }

    /// Lower-cases `name` and maps the legacy `merchandise` to `merchandising`.
    private static func normalize(_ name: String) -> String {
        // Wire keys are already lower-case ASCII; `lowercased()` is a visible part of decoding a body.
        let lowered = name.utf8.allSatisfy({ $0 < 0x80 && !(0x41...0x5A).contains($0) }) ? name : name.lowercased()
        return lowered == "merchandise" ? "merchandising" : lowered
    }
}
