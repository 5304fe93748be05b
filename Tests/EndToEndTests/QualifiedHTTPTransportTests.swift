import Foundation
import RealtimeSegments
import RealtimeSegmentsHTTP
import XCTest
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SPEC §9 over HTTP: configuration errors and network failures of the qualified-segments request.
/// (The request and response shapes are pinned by `QualifiedWireTests`; the mock server's GraphQL
/// endpoint will cover the round trip.)
final class QualifiedHTTPTransportTests: XCTestCase {
    private let query = QualifiedSegmentsQuery(userKey: .fsUserId, userValue: "jane", segmentsToCheck: ["a"])

    func testQualifiedHostDefaultsToTheBaseURL() throws {
        let configuration = try HTTPTransportConfiguration(baseURL: "https://api.example.com")
        XCTAssertNil(configuration.qualifiedSegmentsHost)
        XCTAssertEqual(configuration.qualifiedSegmentsTimeout, .seconds(10))
    }

    func testBadQualifiedHostIsAConfigurationError() throws {
        var configuration = try HTTPTransportConfiguration(baseURL: "https://api.example.com")
        for bad in ["ftp://odp.example.com", "odp.example.com", "https://"] {
            XCTAssertThrowsError(try configuration.setQualifiedSegmentsHost(URL(string: bad))) { error in
                guard case .invalidArgument = error as? SegmentsError else { return XCTFail("\(error)") }
            }
        }
        XCTAssertNil(configuration.qualifiedSegmentsHost)
        XCTAssertThrowsError(
            try HTTPTransportConfiguration(
                baseURL: URL(string: "https://api.example.com")!, qualifiedSegmentsHost: URL(string: "mailto:x")))
    }

    func testRefusedConnectionIsANetworkError() async throws {
        let port = try Self.closedPort()
        var configuration = try HTTPTransportConfiguration(baseURL: "http://127.0.0.1:\(port)")
        // AsyncHTTPClient's pool retries a refused connection until the deadline, so keep it short.
        configuration.qualifiedSegmentsTimeout = .seconds(1)
        let transport = HTTPSegmentsTransport(configuration: configuration)
        do {
            _ = try await transport.fetchQualifiedSegments(query, apiKey: "key")
            XCTFail("expected a failure")
        } catch {
            XCTAssertEqual(error, .fetchSegmentsFailed("network error"))
        }
    }

    func testServerThatNeverAnswersIsANetworkErrorAtTheDeadline() async throws {
        let listener = try SilentListener()
        defer { listener.close() }
        var configuration = try HTTPTransportConfiguration(baseURL: "http://127.0.0.1:\(listener.port)")
        configuration.qualifiedSegmentsTimeout = .milliseconds(300)
        let transport = HTTPSegmentsTransport(configuration: configuration)
        do {
            _ = try await transport.fetchQualifiedSegments(query, apiKey: "key")
            XCTFail("expected a failure")
        } catch {
            XCTAssertEqual(error, .fetchSegmentsFailed("network error"))
        }
    }

    /// A loopback port nothing listens on (bound, then closed).
    private static func closedPort() throws -> Int {
        let listener = try SilentListener()
        let port = listener.port
        listener.close()
        return port
    }
}

/// A loopback TCP socket that listens but never accepts: connections complete in the backlog and
/// requests get no answer.
private final class SilentListener: Sendable {
    let descriptor: Int32
    let port: Int

    init() throws {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else { throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        descriptor = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() {
        #if canImport(Glibc)
        _ = Glibc.close(descriptor)
        #else
        _ = Darwin.close(descriptor)
        #endif
    }
}
