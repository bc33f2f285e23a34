import NIOCore

/// Where a SIP message goes: a resolved UDP address.
public struct SIPDestination: Sendable, Equatable {
    public var address: SocketAddress

    public init(address: SocketAddress) { self.address = address }

    /// `sip:host:port` with a literal IP or a name resolved by the system resolver.
    public init(uri: SIPURI) throws {
        let port = uri.port ?? 5060
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
