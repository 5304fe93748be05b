import GraphQL
import NIOConcurrencyHelpers

/// Parsed and validated GraphQL documents by query text, so that the fixed queries clients send
/// (ODP's template has one text per user key) are parsed and validated once, not per request.
///
/// Only valid documents are kept, at most ``capacity`` of them; once full, new texts are parsed
/// every time (a test sending many distinct queries must not grow memory without bound).
///
/// Threading: every method may be called from any thread.
final class ParsedQueryCache: Sendable {
    /// A document from the cache or fresh from the parser, or why the query cannot run.
    enum Lookup {
        /// Parsed and valid against the schema.
        case valid(Document)
        /// The text is not GraphQL: the parser's error.
        case syntaxError(GraphQLError)
        /// The document does not fit the schema: the validation errors.
        case invalid([GraphQLError])
    }

    /// `Document` is an immutable value whose stored properties are all `Sendable` (`Location`,
    /// and `[Definition]` with `Definition: Node: Sendable`); the library only omits the
    /// declaration. The cache never mutates a document, so sharing it across threads is safe.
    private struct SharedDocument: @unchecked Sendable {
        let document: Document
    }

    /// How many documents are kept.
    static let capacity = 64

    private let schema: GraphQLSchema
    private let documents = NIOLockedValueBox<[String: SharedDocument]>([:])

    /// Creates an empty cache for `schema`.
    init(schema: GraphQLSchema) { self.schema = schema }

    /// The document of `query`, parsed and validated (or cached from an earlier call).
    func document(for query: String) -> Lookup {
        if let cached = documents.withLockedValue({ $0[query] }) { return .valid(cached.document) }
        let document: Document
        do {
            document = try parse(source: Source(body: query, name: "GraphQL request"))
        } catch let error as GraphQLError {
            return .syntaxError(error)
        } catch {
            return .syntaxError(GraphQLError(error))
        }
        let errors = validate(schema: schema, ast: document)
        guard errors.isEmpty else { return .invalid(errors) }
        documents.withLockedValue { documents in
            if documents.count < Self.capacity { documents[query] = SharedDocument(document: document) }
        }
        return .valid(document)
    }
}
