import GraphQL
import RealtimeSegments

/// The GraphQL schema of the mock `POST /v3/graphql` endpoint: the part of ODP's schema that
/// qualified-segments clients use.
///
/// ```graphql
/// type Query { customer(fs_user_id: String, vuid: String): Customer }
/// type Customer { audiences(subset: [String]): AudienceConnection }
/// type AudienceConnection { edges: [AudienceEdge] }
/// type AudienceEdge { node: Audience }
/// type Audience { name: String, state: String, description: String }
/// ```
///
/// Resolution, with a ``QualifiedSegmentsContext`` as the execution context:
/// - `customer` takes exactly one of `fs_user_id` and `vuid` and snapshots that customer's
///   audiences (``CustomerAudiences``) in one lock step. An id no customer has fails the field
///   with ODP's error: `Exception while fetching data (/customer) : java.lang.RuntimeException:
///   could not resolve _<key> = <id>`, `extensions` `{"code": "INVALID_IDENTIFIER_EXCEPTION",
///   "classification": "DataFetchingException"}`; none or both ids fail it with a
///   `DataFetchingException` without a code.
/// - `audiences(subset:)` with no, a `null` or an empty `subset` lists every known audience in
///   server order; otherwise the requested names in request order, each once, leaving out names
///   the project does not know. `state` is `"qualified"` or `"not_qualified"`.
enum QualifiedSegmentsSchema {
    /// The `extensions.classification` of an error raised while resolving a field.
    static let dataFetchingClassification = "DataFetchingException"

    /// The schema. Built once: it is immutable after construction (the library's types are
    /// `@unchecked Sendable` on that premise) and building it costs more than most queries.
    static let schema: GraphQLSchema = {
        do {
            return try makeSchema()
        } catch {
            // The schema is a constant of this file: an error here is a bug, caught by any test.
            fatalError("invalid qualified-segments schema: \(error)")
        }
    }()

    private static func makeSchema() throws -> GraphQLSchema {
        let audience = try GraphQLObjectType(
            name: "Audience",
            fields: [
                "name": GraphQLField(type: GraphQLString) { source, _, _, _ in (source as? AudienceNode)?.name },
                "state": GraphQLField(type: GraphQLString) { source, _, _, _ in (source as? AudienceNode)?.state },
                "description": GraphQLField(type: GraphQLString) { source, _, _, _ in
                    (source as? AudienceNode)?.description
                },
            ])
        let edge = try GraphQLObjectType(
            name: "AudienceEdge",
            fields: ["node": GraphQLField(type: audience) { source, _, _, _ in source as? AudienceNode }])
        let connection = try GraphQLObjectType(
            name: "AudienceConnection",
            fields: [
                "edges": GraphQLField(type: GraphQLList(edge)) { source, _, _, _ in
                    // The library completes lists typed as optional-any elements.
                    (source as? [AudienceNode])?.map { $0 as (any Sendable)? }
                }
            ])
        let customer = try GraphQLObjectType(
            name: "Customer",
            fields: [
                "audiences": GraphQLField(
                    type: connection, args: ["subset": GraphQLArgument(type: GraphQLList(GraphQLString))]
                ) { source, args, _, _ in
                    (source as? CustomerAudiences).map { audiences(of: $0, subset: args["subset"]) }
                }
            ])
        let query = try GraphQLObjectType(
            name: "Query",
            fields: [
                "customer": GraphQLField(
                    type: customer,
                    args: [
                        QualifiedUserKey.fsUserId.rawValue: GraphQLArgument(type: GraphQLString),
                        QualifiedUserKey.vuid.rawValue: GraphQLArgument(type: GraphQLString),
                    ]
                ) { _, args, context, info in
                    try resolveCustomer(args: args, context: context, info: info)
                }
            ])
        return try GraphQLSchema(query: query)
    }

    /// The `customer` field: the audience snapshot of the one identified customer.
    private static func resolveCustomer(args: Map, context: any Sendable, info: GraphQLResolveInfo) throws
        -> CustomerAudiences
    {
        guard let context = context as? QualifiedSegmentsContext else {
            throw fieldError("java.lang.IllegalStateException: no project", code: nil, info: info)
        }
        let given = QualifiedUserKey.allCases.compactMap { key in args[key.rawValue].string.map { (key, $0) } }
        guard given.count == 1, let (key, value) = given.first else {
            throw fieldError(
                "java.lang.IllegalArgumentException: exactly one of fs_user_id and vuid is required", code: nil,
                info: info)
        }
        guard let audiences = context.backend.audiences(userKey: key, userValue: value, projectToken: context.projectToken)
        else {
            throw fieldError(
                "java.lang.RuntimeException: could not resolve _\(key.rawValue) = \(value)",
                code: QualifiedSegmentsWire.invalidIdentifierCode, info: info)
        }
        return audiences
    }

    /// The `audiences(subset:)` field, as documented on the type.
    static func audiences(of customer: CustomerAudiences, subset: Map) -> [AudienceNode] {
        func node(_ name: String) -> AudienceNode {
            AudienceNode(name: name, state: customer.qualified.contains(name) ? AudienceNode.qualified : AudienceNode.notQualified)
        }
        let requested = subset.array?.compactMap(\.string) ?? []
        guard !requested.isEmpty else { return customer.known.map(node) }
        // Requests name a handful of audiences: a linear scan of `known` beats building a set.
        var nodes: [AudienceNode] = []
        nodes.reserveCapacity(requested.count)
        for name in requested where customer.known.contains(name) && !nodes.contains(where: { $0.name == name }) {
            nodes.append(node(name))
        }
        return nodes
    }

    /// A field error in ODP's format: `Exception while fetching data (/path) : <detail>`, located
    /// at the field, with `code` (when given) and the data-fetching classification.
    private static func fieldError(_ detail: String, code: String?, info: GraphQLResolveInfo) -> GraphQLError {
        let path = info.path.elements.map { element -> String in
            switch element {
            case .key(let key): key
            case .index(let index): String(index)
            }
        }
        var extensions: [String: Map] = ["classification": .string(dataFetchingClassification)]
        if let code { extensions["code"] = .string(code) }
        return GraphQLError(
            message: "Exception while fetching data (/\(path.joined(separator: "/"))) : \(detail)",
            nodes: info.fieldASTs, path: info.path, extensions: extensions)
    }
}
