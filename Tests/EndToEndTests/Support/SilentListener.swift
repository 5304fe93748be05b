import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A loopback TCP socket that listens but does not accept (unless a test waits for a request with
/// ``awaitRequest(seconds:)``): connections complete in the backlog and requests get no answer.
final class SilentListener: Sendable {
    let descriptor: Int32
    let port: Int
    /// Connections taken by ``awaitRequest(seconds:)``, held open without an answer.
    private let accepted = Mutex<[Int32]>([])

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

    /// Waits up to `seconds` for a client's connection and its first bytes: accepts the
    /// connection and reads what the client sent, then leaves it open and unanswered (closed by
    /// ``close()``). Returns whether a request arrived; a test cancels a call "while it waits for
    /// the answer" only then, instead of sleeping and hoping it got that far.
    func awaitRequest(seconds: Int32 = 10) -> Bool {
        var listening = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&listening, 1, seconds * 1_000) == 1 else { return false }
        let connection = accept(descriptor, nil, nil)
        guard connection >= 0 else { return false }
        accepted.withLock { $0.append(connection) }
        var readable = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
        guard poll(&readable, 1, seconds * 1_000) == 1 else { return false }
        var chunk = [UInt8](repeating: 0, count: 4_096)
        return recv(connection, &chunk, chunk.count, Int32(MSG_DONTWAIT)) > 0
    }

    func close() {
        for connection in accepted.withLock({ $0 }) { Self.closeDescriptor(connection) }
        Self.closeDescriptor(descriptor)
    }

    private static func closeDescriptor(_ descriptor: Int32) {
        #if canImport(Glibc)
        _ = Glibc.close(descriptor)
        #else
        _ = Darwin.close(descriptor)
        #endif
    }
}
