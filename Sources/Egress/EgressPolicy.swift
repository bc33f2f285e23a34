import Foundation
import Tools
import NIOCore
import NIOPosix

/// Where the server may connect out to on behalf of what an API user or a caller supplied: bot
/// URLs, webhooks, Twilio's API base, transfer targets. A destination's name is resolved here and
/// every address it resolves to is checked: loopback, private, shared (CGNAT), link-local (cloud
/// metadata at 169.254.169.254), multicast and reserved addresses are refused unless `allowed`
/// lists a block that holds them. A server with no API token (it listens on loopback only) may
/// also reach loopback, so a local set-up with a bot or a receiver on 127.0.0.1 keeps working.
/// Checking every address, not the first, keeps a name that answers with one public and one
/// private address from choosing where it goes.
public struct EgressPolicy: Sendable, Equatable {
    /// Blocks the operator allows although they are not public (`egress.allow`).
    public var allowed: [IPNetwork]
    /// Loopback destinations allowed (a token-less, loopback-only server).
    public var allowsLoopback: Bool

    public init(allowed: [IPNetwork] = [], allowsLoopback: Bool = false) {
        self.allowed = allowed
        self.allowsLoopback = allowsLoopback
    }

    /// Refused: what was asked for and why, said the same whatever lies behind the address.
    public struct Refusal: Error, Equatable, CustomStringConvertible {
        public let host: String
        public let reason: String
        public var description: String { "\(host) is not an allowed destination: \(reason)" }
    }

    /// Addresses no destination may have unless `allowed` says so (RFC 6890's special-purpose blocks
    /// that lead somewhere other than the public internet).
    static let notPublic: [IPNetwork] = [
        "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
        "192.0.0.0/24", "192.168.0.0/16", "198.18.0.0/15", "224.0.0.0/4", "240.0.0.0/4",
        "::/96", "64:ff9b:1::/48", "fc00::/7", "fe80::/10", "fec0::/10", "ff00::/8", "100::/64", "2001:db8::/32",
    ].compactMap(IPNetwork.init)
    static let loopback: [IPNetwork] = ["127.0.0.0/8", "::1/128"].compactMap(IPNetwork.init)

    /// Whether a connection to `address` is allowed.
    public func permits(_ address: IPAddressBytes) -> Bool {
        let checked = address.embeddedIPv4 ?? address
        if allowed.contains(where: { $0.contains(checked) }) { return true }
        if allowsLoopback, Self.loopback.contains(where: { $0.contains(checked) }) { return true }
        return !Self.notPublic.contains { $0.contains(checked) }
    }

    /// Resolves `host` and returns the address to connect to (the first one), when every address it
    /// resolves to is allowed. The caller connects to that address, not to the name again, so a
    /// name whose answer changes between the check and the connection cannot move it.
    public func destination(host: String, port: Int) async throws -> SocketAddress {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let addresses: [SocketAddress]
        if let literal = IPAddressBytes(parsing: bare) {
            addresses = [try SocketAddress(ipAddress: literal.description, port: port)]
        } else {
            addresses = try await Self.resolve(bare, port: port)
        }
        guard !addresses.isEmpty else { throw Refusal(host: host, reason: "the name does not resolve") }
        for address in addresses {
            guard let bytes = IPAddressBytes(address), permits(bytes) else {
                // The address itself is not said: a refusal reaches API users, and what an internal
                // name resolves to is the operator's to know.
                let what = IPAddressBytes(parsing: bare) == nil ? "it resolves to" : "it is"
                throw Refusal(host: host, reason: "\(what) a loopback, private, link-local or reserved address (egress.allow lists the blocks the server may reach)")
            }
        }
        return addresses[0]
    }

    /// getaddrinfo on NIO's blocking pool (it blocks; the event loops must not).
    static func resolve(_ host: String, port: Int) async throws -> [SocketAddress] {
        try await NIOThreadPool.singleton.runIfActive {
            var hints = addrinfo()
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            var list: UnsafeMutablePointer<addrinfo>?
            let status = getaddrinfo(host, String(port), &hints, &list)
            guard status == 0, let first = list else {
                throw Refusal(host: host, reason: "the name does not resolve")
            }
            defer { freeaddrinfo(list) }
            var addresses: [SocketAddress] = []
            var entry: UnsafeMutablePointer<addrinfo>? = first
            while let info = entry {
                if let sockaddr = info.pointee.ai_addr {
                    switch info.pointee.ai_family {
                    case AF_INET:
                        sockaddr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { addresses.append(SocketAddress($0.pointee, host: host)) }
                    case AF_INET6:
                        sockaddr.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { addresses.append(SocketAddress($0.pointee, host: host)) }
                    default: break
                    }
                }
                entry = info.pointee.ai_next
            }
            return addresses
        }
    }

    /// Checks a URL's host and port.
    public func destination(of url: OutboundURL) async throws -> SocketAddress {
        try await destination(host: url.host, port: url.port)
    }
}
