import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import XCTest

/// The test server itself: a stopped server must be gone, not still running on descriptors that
/// the next test's sockets may reuse.
final class CannedHTTPServerTests: XCTestCase {
    /// A server thread that outlives `stop()` calls `accept` on its listener's descriptor number
    /// after `stop()` closed it; when the next test's listener reuses that number, the old thread
    /// takes and closes that test's first connection (seen as `remoteConnectionClosed` there).
    func testStopReturnsOnlyOnceTheServerThreadHasEndedEvenWhileItServesAStalledAnswer() throws {
        let server = try CannedHTTPServer(scripted: [.init(status: 200, body: "{\"a\":1}", delivery: .stalled)])
        let client = try Self.connect(to: server.port)
        defer { _ = close(client) }
        let request = Array("GET / HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n".utf8)
        XCTAssertEqual(send(client, request, request.count, Int32(MSG_NOSIGNAL)), request.count)
        // The stalled answer has been sent once the request is recorded; the server thread now
        // waits in recv on that connection.
        let deadline = Date().addingTimeInterval(10)
        while server.requests.isEmpty, Date() < deadline { usleep(1_000) }
        XCTAssertEqual(server.requests.count, 1)

        server.stop()
        XCTAssertTrue(server.threadHasEnded, "stop() returned while the server thread still runs")
    }

    private static func connect(to port: Int) throws -> Int32 {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                #if canImport(Glibc)
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                #else
                Darwin.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                #endif
            }
        }
        guard fd >= 0, connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        return fd
    }
}
