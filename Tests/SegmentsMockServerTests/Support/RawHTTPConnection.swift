import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A plain blocking TCP connection to 127.0.0.1, for what an HTTP client library hides: exact
/// bytes on the wire, pipelined requests, a head without its body. Reads are bounded by a receive
/// timeout so a test cannot hang.
final class RawHTTPConnection {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private let descriptor: Int32

    init(port: Int, receiveTimeoutSeconds: Int = 10) throws {
        #if canImport(Glibc)
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw Failure(description: "socket() failed") }
        var timeout = timeval(tv_sec: receiveTimeoutSeconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            throw Failure(description: "connect() failed")
        }
    }

    deinit { close(descriptor) }

    /// Writes all of `text`.
    func send(_ text: String) throws {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            guard written > 0 else { throw Failure(description: "write() failed") }
            bytes = bytes.dropFirst(written)
        }
    }

    /// Reads until the server closes the connection (or the receive timeout passes).
    func readUntilClosed() -> [UInt8] {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { return received }
            received.append(contentsOf: chunk[0..<count])
        }
    }
}

/// One HTTP response parsed from raw bytes.
struct RawHTTPResponse {
    var status: Int
    var headers: [String: String]
    var body: [UInt8]

    /// Splits `bytes` into consecutive responses, each body read by its `content-length` (or up to
    /// the end when the bytes run out, as with a truncated body).
    static func parseAll(_ bytes: [UInt8]) -> [RawHTTPResponse] {
        var responses: [RawHTTPResponse] = []
        var rest = bytes[...]
        let separator = Array("\r\n\r\n".utf8)
        while let headEnd = rest.firstRange(of: separator) {
            let headText = String(decoding: rest[rest.startIndex..<headEnd.lowerBound], as: UTF8.self)
            var lines = headText.components(separatedBy: "\r\n")
            let statusLine = lines.removeFirst().split(separator: " ")
            var headers: [String: String] = [:]
            for line in lines {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            let length = headers["content-length"].flatMap(Int.init) ?? 0
            let bodyStart = headEnd.upperBound
            let bodyEnd = min(rest.endIndex, bodyStart + length)
            responses.append(RawHTTPResponse(
                status: statusLine.count > 1 ? Int(statusLine[1]) ?? 0 : 0, headers: headers,
                body: Array(rest[bodyStart..<bodyEnd])))
            rest = rest[bodyEnd...]
        }
        return responses
    }
}
