import NIOCore

/// Where a SIP message goes: a resolved address (of a UDP peer, or of a TCP/TLS connection).
public struct SIPDestination: Sendable, Equatable {
    public var address: SocketAddress

    public init(address: SocketAddress) { self.address = address }

    /// `sip:host:port` with a literal IP or a name resolved by the system resolver; `defaultPort`
    /// when the URI has none (5061 for SIP over TLS).
    public init(uri: SIPURI, defaultPort: Int = 5060) throws {
        let port = uri.port ?? defaultPort
        if let literal = try? SocketAddress(ipAddress: uri.host.trimmingCharacters(in: ["[", "]"]), port: port) {
            address = literal
        } else {
            address = try SocketAddress.makeAddressResolvingHost(uri.host, port: port)
        }
    }
}

extension String {
    func trimmingCharacters(in set: Set<Character>) -> String {
        String(drop { set.contains($0) }.reversed().drop { set.contains($0) }.reversed())
    }
}
