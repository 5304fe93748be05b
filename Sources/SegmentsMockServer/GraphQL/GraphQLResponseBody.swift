import Foundation
import GraphQL

/// The JSON body of a qualified-segments answer, built from a `GraphQLResult` in ODP's member
/// order: `errors` first (when there are any), then `data` (when execution ran); each error as
/// `message`, `locations`, `path` (when not empty), then `extensions` with `code` before
/// `classification`. The HTTP server and the in-memory transport both serialize it with
/// `data(_:)`, so the in-memory transport decodes exactly the text the server would send.
enum GraphQLResponseBody {
    /// The body as a JSON tree.
    private static func map(_ result: GraphQLResult) -> Map {
        switch (result.errors.isEmpty, result.data) {
        case (true, let data?): ["data": data]
        case (true, nil): ["data": .null]
        case (false, let data?): ["errors": .array(result.errors.map(map)), "data": data]
        case (false, nil): ["errors": .array(result.errors.map(map))]
        }
    }

    /// The body as JSON text, members in the order of ``map(_:)``.
    static func data(_ result: GraphQLResult) -> Data {
        data(map(result))
    }

    /// `body` as JSON text, members in their `Map` order, slashes unescaped (ODP's messages
    /// contain paths such as `(/customer)`).
    static func data(_ body: Map) -> Data {
        let encoder = GraphQLJSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        // A Map holds only JSON values, and the library's numbers are finite: encoding cannot fail.
        return (try? encoder.encode(body)) ?? Data(#"{"data":null}"#.utf8)
    }

    private static func map(_ error: GraphQLError) -> Map {
        var extensions: Map = [:]
        if let code = error.extensions["code"] { extensions["code"] = code }
        for (key, value) in error.extensions.sorted(by: { $0.key < $1.key }) where key != "code" {
            extensions[key] = value
        }
        var body: Map = ["message": .string(error.message)]
        if !error.locations.isEmpty {
            body["locations"] = .array(error.locations.map { ["line": .int($0.line), "column": .int($0.column)] })
        }
        if !error.path.elements.isEmpty {
            body["path"] = .array(
                error.path.elements.map { element in
                    switch element {
                    case .key(let key): .string(key)
                    case .index(let index): .int(index)
                    }
                })
        }
        if extensions != [:] { body["extensions"] = extensions }
        return body
    }
}
