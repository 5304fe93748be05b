import Foundation
import RealtimeSegments
import SegmentsBenchCLI
import SegmentsBenchKit
import SegmentsMockServer
import XCTest

/// `--target`: which URLs, hosts and authorizations a target accepts, and which scenarios refuse
/// one. Nothing here connects: a run against a real server is Tests/Compatibility/target.
final class BenchTargetTests: XCTestCase {
    func testLoopbackHosts() {
        for host in ["127.0.0.1", "127.255.3.9", "localhost", "LOCALHOST", "::1", "[::1]"] {
            XCTAssertTrue(BenchTarget.isLoopback(host: host), host)
        }
        for host in ["10.0.0.1", "128.0.0.1", "example.com", "127.0.0.1.example.com", "127.example.com", "::2", "1270.0.0.1", ""] {
            XCTAssertFalse(BenchTarget.isLoopback(host: host), host)
        }
    }

    func testALoopbackTargetIsAccepted() throws {
        let target = try BenchTarget(url: "http://127.0.0.1:8080", projectToken: "p", authorization: "token:k", allowRemote: false)
        XCTAssertEqual(target.description, "http://127.0.0.1:8080")
        XCTAssertEqual(target.authorization, .token("k"))
        let configuration = target.configuration(transport: target.makeTransport(requestTimeout: .seconds(1)))
        XCTAssertEqual(configuration.projectToken, "p")
        XCTAssertEqual(configuration.authorization, .token("k"))
        XCTAssertEqual(
            try BenchTarget(url: "https://[::1]:9/", projectToken: "p", authorization: "bearer:jwt:with:colons", allowRemote: false)
                .authorization,
            .bearer("jwt:with:colons"))
    }

    func testARemoteHostNeedsTheOptIn() throws {
        XCTAssertThrowsError(try BenchTarget(url: "http://10.1.2.3:80", projectToken: "p", authorization: "token:k", allowRemote: false)) {
            XCTAssertEqual($0 as? BenchTargetError, .remoteNotAllowed(host: "10.1.2.3"))
        }
        XCTAssertNoThrow(try BenchTarget(url: "https://api.example.com", projectToken: "p", authorization: "token:k", allowRemote: true))
    }

    func testBadURLsAreRefused() {
        for url in ["ftp://127.0.0.1", "127.0.0.1:8080", "http://", "http://127.0.0.1:8080/api", "http://127.0.0.1?x=1",
                    "http://user:pw@127.0.0.1", "not a url"] {
            XCTAssertThrowsError(try BenchTarget(url: url, projectToken: "p", authorization: "token:k", allowRemote: true), url) {
                XCTAssertEqual($0 as? BenchTargetError, .invalidURL(url), url)
            }
        }
    }

    func testBasicNamesAKeyIdAndASecret() throws {
        let target = try BenchTarget(url: "http://localhost:1", projectToken: "p", authorization: "basic:key-id:s:e:c", allowRemote: false)
        XCTAssertEqual(target.authorization, .basic(keyId: "key-id", secret: "s:e:c"))
    }

    func testAuthorizationsOtherThanTokenBearerAndBasicAreRefused() {
        for (text, error) in [("basic:id-without-secret", BenchTargetError.invalidAuthorization(kind: "basic")),
                              ("basic::secret", .emptyCredential(kind: "basic")), ("key", .invalidAuthorization(kind: "")),
                              ("token:", .emptyCredential(kind: "token")), ("bearer:", .emptyCredential(kind: "bearer")),
                              ("jwt:x", .invalidAuthorization(kind: "jwt"))] {
            XCTAssertThrowsError(try BenchTarget(url: "http://localhost:1", projectToken: "p", authorization: text, allowRemote: false)) {
                XCTAssertEqual($0 as? BenchTargetError, error, text)
            }
        }
        XCTAssertThrowsError(try BenchTarget(url: "http://localhost:1", projectToken: "", authorization: "token:k", allowRemote: false))
    }

    func testTheReportRecordsTheTargetButNotItsCredentials() throws {
        var options = BenchOptions()
        options.target = try BenchTarget(url: "http://127.0.0.1:7", projectToken: "p", authorization: "token:secret-key", allowRemote: false)
        let configuration = options.configuration(honouring: [.transport])
        XCTAssertEqual(configuration["target"], "http://127.0.0.1:7")
        XCTAssertEqual(configuration["transport"], "http")
        XCTAssertFalse(configuration.values.contains { $0.contains("secret-key") })
        let encoded = String(decoding: try JSONEncoder().encode(options), as: UTF8.self)
        XCTAssertFalse(encoded.contains("secret-key"), encoded)
    }

    /// Against a target, the faults are the server's own (`serve --faults --seed`): a --seed for
    /// the in-process mock's faults would be recorded in the report and play no part.
    func testFaultsRefusesASeedAgainstATarget() throws {
        let server = SegmentsMockHTTPServer(backend: SegmentsBackend(projects: [MockProject(token: "p", apiKey: "k")]))
        try runBlocking { try await server.start() }
        defer { try? runBlocking { try await server.stop() } }
        let refused = try XCTUnwrap(failure([
            "run", "faults", "--quick", "--duration", "0.1", "--seed", "7", "--target", server.baseURL.absoluteString,
            "--project-token", "p", "--authorization", "token:k",
        ]), "--seed was accepted against --target")
        XCTAssertEqual(refused.status, 64, refused.message)
        XCTAssertTrue(refused.message.contains("--seed"), refused.message)
    }

    func testScenariosDeclareWhetherTheyRunAgainstATarget() {
        let remote = ScenarioRegistry.builtIn.filter { $0.needsMockIntrospection == nil }.map(\.name)
        XCTAssertEqual(Set(remote), ["tracking-storm", "pull", "faults", "soak", "fleet"])
        XCTAssertTrue(ScenarioRegistry.builtIn.allSatisfy { $0.needsMockIntrospection.map { !$0.isEmpty } ?? true })
    }

    func testTheSuiteRunnerRecordsARefusedScenarioWithoutRunningIt() throws {
        var options = BenchOptions()
        options.quick = true
        options.target = try BenchTarget(url: "http://127.0.0.1:7", projectToken: "p", authorization: "token:k", allowRemote: false)
        let report = SuiteRunner.run([QualifiedScenario()], options: options, progress: Progress(enabled: false), command: "test")
        let result = try XCTUnwrap(report.scenarios.first)
        XCTAssertEqual(result.figures.map(\.name), ["qualified.scenarioFailed"])
        XCTAssertTrue(result.notes.joined().contains("it needs the mock backend's audiences"), "\(result.notes)")
    }

    // MARK: The command line

    private let target = ["--target", "http://127.0.0.1:9", "--project-token", "p", "--authorization", "token:k"]

    /// The exit status and message of running `arguments` with the built-in scenarios, or nil when
    /// it succeeded.
    private func failure(_ arguments: [String]) -> (status: Int32, message: String)? {
        do {
            try SegmentsBenchCLI.run(arguments + ["--out", scratch()], registry: ScenarioRegistry())
            return nil
        } catch {
            return (SegmentsBenchCLI.exitStatus(for: error), SegmentsBenchCLI.message(for: error))
        }
    }

    func testAScenarioNeedingTheMockRefusesATarget() throws {
        let refused = try XCTUnwrap(failure(["run", "qualified", "--quick"] + target))
        XCTAssertEqual(refused.status, 64)
        XCTAssertTrue(refused.message.contains("scenario 'qualified' cannot run against --target http://127.0.0.1:9"), refused.message)
        XCTAssertTrue(refused.message.contains("count of GraphQL requests"), refused.message)
    }

    func testARemoteTargetWithoutTheOptInIsAUsageError() throws {
        let refused = try XCTUnwrap(
            failure(["run", "pull", "--quick", "--target", "http://192.0.2.1:80", "--project-token", "p", "--authorization", "token:k"]))
        XCTAssertEqual(refused.status, 64)
        XCTAssertTrue(refused.message.contains("192.0.2.1 is not a loopback address"), refused.message)
        XCTAssertTrue(refused.message.contains("--allow-remote"), refused.message)
    }

    func testFleetOptionsThatNeedTheMockAreUsageErrorsAgainstATarget() throws {
        let cases: [([String], String)] = [
            (["--threshold", "p99(change-to-callback)<1s"], "names a latency that fleet does not measure against --target"),
            (["--fetch-delay-ms", "3"], "a --target answers as it does"),
        ]
        for (arguments, expected) in cases {
            let refused = try XCTUnwrap(failure(["run", "fleet", "--devices", "2"] + arguments + target), "\(arguments)")
            XCTAssertEqual(refused.status, 64, "\(arguments)")
            XCTAssertTrue(refused.message.contains(expected), "\(arguments): \(refused.message)")
        }
    }

    func testBadTargetOptionsAreUsageErrors() throws {
        let cases: [([String], String)] = [
            (["--target", "localhost:9", "--project-token", "p", "--authorization", "token:k"], "--target must be http://host[:port]"),
            (["--target", "http://127.0.0.1:9", "--authorization", "token:k"], "--target needs --project-token and --authorization"),
            (["--project-token", "p"], "go with --target"),
            (["--target", "http://127.0.0.1:9", "--project-token", "p", "--authorization", "basic:id-without-secret"],
             "--authorization must be token:KEY, bearer:TOKEN or basic:KEY_ID:SECRET"),
            (target + ["--transport", "memory"], "against --target the engine always uses HTTP"),
        ]
        for (arguments, expected) in cases {
            let refused = try XCTUnwrap(failure(["run", "pull", "--quick"] + arguments), "\(arguments)")
            XCTAssertEqual(refused.status, 64, "\(arguments)")
            XCTAssertTrue(refused.message.contains(expected), "\(arguments): \(refused.message)")
        }
    }

    private func scratch() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("bench-target-\(UUID().uuidString)").path
    }
}
