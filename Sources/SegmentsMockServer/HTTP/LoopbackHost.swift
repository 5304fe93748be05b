#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Which hosts the mock server may bind: loopback only, so that a test or benchmark can never
/// expose it (or send load) beyond this machine.
enum LoopbackHost {
    /// The address to bind and to put in URLs for `host`, or `nil` when `host` is not loopback.
    ///
    /// Accepted: `localhost` (bound as `127.0.0.1`, so the address family is certain), any
    /// dotted-quad IPv4 address in 127.0.0.0/8, and the IPv6 loopback `::1` in any spelling, with
    /// or without brackets. Names other than `localhost` are refused rather than resolved.
    static func bindAddress(for host: String) -> String? {
        if host.lowercased() == "localhost" { return "127.0.0.1" }
        var ipv4 = in_addr()
        if inet_pton(AF_INET, host, &ipv4) == 1 {
            // s_addr is in network byte order: its first byte in memory is the first octet.
            let firstOctet = withUnsafeBytes(of: &ipv4) { $0[0] }
            return firstOctet == 127 ? host : nil
        }
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        var ipv6 = in6_addr()
        if inet_pton(AF_INET6, bare, &ipv6) == 1 {
            let bytes = withUnsafeBytes(of: &ipv6) { Array($0) }
            return bytes == Array(repeating: 0, count: 15) + [1] ? "::1" : nil
        }
        return nil
    }

    /// `address` as it appears in a URL authority (IPv6 in brackets).
    static func urlHost(_ address: String) -> String {
        address.contains(":") ? "[\(address)]" : address
    }
}
