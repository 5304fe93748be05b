import SegmentsMockServer
import XCTest

final class LoopbackBindingTests: XCTestCase {
    func testNonLoopbackHostsAreRefusedBeforeBinding() async {
        for host in ["0.0.0.0", "10.0.0.1", "192.168.1.10", "8.8.8.8", "::", "fe80::1", "example.com", "128.0.0.1"] {
            let server = SegmentsMockHTTPServer(backend: SegmentsBackend(), host: host)
            do {
                try await server.start()
                try? await server.stop()
                XCTFail("\(host) was accepted")
            } catch {
                XCTAssertEqual(error, .nonLoopbackHost(host))
            }
        }
    }

    func testLocalhostBindsTheIPv4Loopback() async throws {
        let server = SegmentsMockHTTPServer(backend: SegmentsBackend(), host: "localhost")

        try await server.start()
        let url = server.baseURL
        let port = server.port
        try await server.stop()

        XCTAssertNotEqual(port, 0)
        XCTAssertEqual(url.absoluteString, "http://127.0.0.1:\(port)")
    }

    func testStartingTwiceIsRefusedAndAStoppedServerCanStartAgain() async throws {
        let server = SegmentsMockHTTPServer(backend: SegmentsBackend(), host: "127.0.0.1")
        try await server.start()

        do {
            try await server.start()
            XCTFail("second start was accepted")
        } catch {
            XCTAssertEqual(error, .alreadyStarted)
        }
        try await server.stop()
        try await server.start()
        try await server.stop()
    }
}
