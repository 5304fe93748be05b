import Foundation
import GraphQL

/// The body of a GraphQL-over-HTTP POST: `{"query": "...", "variables": {...}, "operationName": "..."}`.
/// `variables` and `operationName` may be missing or `null`; unknown members are ignored.
struct GraphQLRequestBody: Sendable, Decodable {
    /// The GraphQL document text.
    var query: String
    /// The variable values, by name.
    var variables: [String: Map]
    /// The operation to run when the document has several.
    var operationName: String?

    /// Creates a request.
    init(query: String, variables: [String: Map] = [:], operationName: String? = nil) {
        self.query = query
        self.variables = variables
        self.operationName = operationName
    }

    private enum CodingKeys: String, CodingKey {
        case query, variables, operationName
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        query = try container.decode(String.self, forKey: .query)
        variables = try container.decodeIfPresent([String: Map].self, forKey: .variables) ?? [:]
        operationName = try container.decodeIfPresent(String.self, forKey: .operationName)
    }

    /// Decodes a request body; a body that is not JSON or lacks a string `query` is rejected with
    /// a reason (the server's 400).
    static func decode(_ body: Data) throws(RequestValidation.Rejection) -> GraphQLRequestBody {
        guard !body.isEmpty else { throw RequestValidation.Rejection(reason: "empty body") }
        do {
            return try JSONDecoder().decodeUntrusted(GraphQLRequestBody.self, from: body)
        } catch DecodingError.keyNotFound(let key, _) {
            throw RequestValidation.Rejection(reason: "missing \"\(key.stringValue)\"")
        } catch DecodingError.typeMismatch(_, let context) {
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            throw RequestValidation.Rejection(reason: path.isEmpty ? "body is not a JSON object" : "\"\(path)\" has the wrong type")
        } catch {
            throw RequestValidation.Rejection(reason: "invalid JSON")
        }
    }
}
