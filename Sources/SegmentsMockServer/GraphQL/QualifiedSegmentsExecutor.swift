import GraphQL

/// Runs qualified-segments GraphQL requests against ``QualifiedSegmentsSchema`` and the backend:
/// parse (cached), validate, execute. The one execution path of both ways in, so the HTTP server
/// and ``MockSegmentsTransport`` answer every query identically.
///
/// Every error of the result carries an `extensions.classification`, as ODP's graphql-java server
/// does: `InvalidSyntax` for a query that does not parse, `ValidationError` for one that does not
/// fit the schema or whose variables do not fit their types (no `data` then), and the resolvers'
/// own classification (``QualifiedSegmentsSchema/dataFetchingClassification``) for field errors.
///
/// Threading: `Sendable`; any number of executions may run concurrently.
struct QualifiedSegmentsExecutor: Sendable {
    /// The `extensions.classification` of a query that does not parse.
    static let syntaxClassification = "InvalidSyntax"
    /// The `extensions.classification` of a query or variables that do not fit the schema.
    static let validationClassification = "ValidationError"

    /// The backend the resolvers read.
    let backend: SegmentsBackend
    /// Shared by every executor: documents depend only on the schema, which is a constant, so
    /// executors stay cheap to create (one per transport call) and still parse each text once.
    private static let documents = ParsedQueryCache(schema: QualifiedSegmentsSchema.schema)

    /// Creates an executor reading `backend`.
    init(backend: SegmentsBackend) { self.backend = backend }

    /// The result of `request` for the project `projectToken`.
    func execute(_ request: GraphQLRequestBody, projectToken: String) async -> GraphQLResult {
        let document: Document
        switch Self.documents.document(for: request.query) {
        case .valid(let valid):
            document = valid
        case .syntaxError(let error):
            return GraphQLResult(errors: [Self.classified(error, as: Self.syntaxClassification)])
        case .invalid(let errors):
            return GraphQLResult(errors: errors.map { Self.classified($0, as: Self.validationClassification) })
        }
        var result: GraphQLResult
        do {
            result = try await GraphQL.execute(
                schema: QualifiedSegmentsSchema.schema, documentAST: document, rootValue: (),
                context: QualifiedSegmentsContext(backend: backend, projectToken: projectToken),
                variableValues: request.variables, operationName: request.operationName)
        } catch {
            // `execute` reports failures in its result; this is only its signature's `throws`.
            result = GraphQLResult(errors: [GraphQLError(error)])
        }
        // Without data, the request failed before execution (variables that do not coerce, an
        // unknown operation name): a validation error in graphql-java's terms.
        let fallback = result.data == nil ? Self.validationClassification : QualifiedSegmentsSchema.dataFetchingClassification
        result.errors = result.errors.map { Self.classified($0, as: fallback) }
        return result
    }

    /// `error` with `classification` added to its extensions unless it already has one.
    private static func classified(_ error: GraphQLError, as classification: String) -> GraphQLError {
        guard error.extensions["classification"] == nil else { return error }
        var extensions = error.extensions
        extensions["classification"] = .string(classification)
        return GraphQLError(message: error.message, locations: error.locations, path: error.path, extensions: extensions)
    }
}
