import ArgumentParser
import Foundation
import RealtimeSegments
import SegmentsBenchKit
import SegmentsMockServer

/// `segments-bench serve`: the mock segments server on a loopback port, for pointing an app at it.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve", abstract: "Run the mock segments server on 127.0.0.1 until interrupted.")
    @Option(parsing: .unconditional, help: "Port (0 picks a free one).") var port: Int = 8080
    @Option(help: "Loopback address to bind.") var host: String = "127.0.0.1"
    @Option(help: "Project token.") var token: String = "mock-project"
    @Option(help: "API key expected as `authorization: Token <key>` or `Bearer <key>`.") var key: String = "mock-key"
    @Option(help: ArgumentHelp(
        "Also accept this private key as HTTP Basic credentials (`authorization: Basic base64(<id>:<secret>)`).",
        valueName: "id:secret"))
    var basicAuth: String?
    @Option(parsing: .unconditional, help: "Stop after this many seconds (default: run until interrupted).") var duration: Double?
    @Flag(help: "Add a demo rule: customers enter a discovery segment after 3 `purchase` events and leave on `refund`.") var demoRules = false
    @Flag(help: "Inject the `faults` scenario's faults at random on every endpoint (for `run faults --target`).") var faults = false
    @Option(parsing: .unconditional, help: "Seed of the injected faults (with --faults; default: 1).") var seed: UInt64?

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be 0 (a free one) to 65535, not \(port)") }
        guard SegmentsMockHTTPServer.isLoopback(host: host) else {
            throw ValidationError("--host must be a loopback address (localhost, 127.0.0.0/8 or ::1), not \(host)")
        }
        if let duration, !(duration > 0 && duration <= 2_592_000) {
            throw ValidationError("--duration must be more than 0 and at most 2592000 seconds (30 days), not \(duration)")
        }
        // The token goes into the URLs' paths as it is, as the printed URLs show it.
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        if token.isEmpty || !token.allSatisfy(unreserved.contains) {
            throw ValidationError("--token must be a non-empty project token of letters, digits, '-', '.', '_' and '~', not \(token.debugDescription)")
        }
        // No client can send an empty key or key id (`run --target` refuses them too), nor a
        // control character in a header.
        let sendable = { (text: String) in !text.unicodeScalars.contains { $0.properties.generalCategory == .control } }
        if key.isEmpty || !sendable(key) { throw ValidationError("--key must be non-empty, without control characters") }
        if basicAuth != nil, keyPair.map({ $0.id.isEmpty || $0.secret.isEmpty || !sendable($0.id) || !sendable($0.secret) }) ?? true {
            throw ValidationError("--basic-auth must be <key id>:<secret>, both non-empty, without control characters")
        }
        if seed != nil, !faults { throw ValidationError("--seed goes with --faults") }
    }

    /// `--basic-auth` split at its first `:` (a Basic user name cannot contain one).
    private var keyPair: MockKeyPair? {
        guard let basicAuth, let colon = basicAuth.firstIndex(of: ":") else { return nil }
        return MockKeyPair(id: String(basicAuth[..<colon]), secret: String(basicAuth[basicAuth.index(after: colon)...]))
    }

    func run() throws {
        let backend = SegmentsBackend(projects: [MockProject(token: token, apiKey: key, keyPair: keyPair)])
        if demoRules {
            backend.addRule(SegmentRule(
                category: .discovery, segment: Segment(id: "66140257f4cb337324209871", segmentationId: "66140215fb50effc8a7218b4"),
                entersAfter: EventThreshold(eventType: "purchase", count: 3), leavesOn: "refund"))
        }
        let plan = faults ? FaultsScenario.faultPlan(seed: seed ?? 1, overHTTP: true) : .none
        let server = SegmentsMockHTTPServer(backend: backend, host: host, port: port, faults: plan)
        // SIGINT (Ctrl-C) and SIGTERM stop the server cleanly, with or without --duration, also in
        // a script's background job, which starts with SIGINT ignored. Caught from here on, before
        // the port is announced: a script may signal as soon as it reads it.
        guard let stop = StopSignals() else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EMFILE) }
        defer { stop.restore() }
        do {
            try runBlocking { try await server.start() }
        } catch {
            // The port or address asked for (taken, or not ours to bind): a usage error, as for
            // --metrics-port.
            throw ValidationError("--port \(port): cannot listen on \(host):\(port): \(error)")
        }
        let basic = keyPair.map { " or Basic \($0.id):<secret>" } ?? ""
        print("Mock segments server on \(server.baseURL) (project \(token), authorization: Token \(key)\(basic)). Ctrl-C to stop.")
        print("  GET  \(server.baseURL)/webxp/projects/\(token)/segments?cookie=<cookie>")
        if faults { print("  injecting the faults scenario's faults on every endpoint (seed \(seed ?? 1))") }
        // Flushed so that a script reading the output through a pipe (to learn the port that
        // --port 0 picked) sees these lines now, not when the buffer fills.
        fflush(nil)  // nil: every output stream (naming `stdout` is not concurrency-safe)
        _ = stop.wait(timeout: duration.map { .seconds($0) })
        try runBlocking { try await server.stop() }
        print("stopped")
    }
}
