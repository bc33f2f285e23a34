import NIOCore

/// How SIP messages travel (RFC 3261 §18): datagrams, or a byte stream over TCP or TLS.
public enum SIPTransportKind: String, Sendable, CaseIterable {
    case udp, tcp, tls

    /// The name in a Via header's sent-protocol.
    public var viaName: String { rawValue.uppercased() }

    /// The port a URI without one means: 5061 for SIP over TLS, 5060 otherwise.
    public var defaultPort: Int { self == .tls ? 5061 : 5060 }

    /// Reliable transports do not retransmit requests (RFC 3261 §17.1.1.2: Timer A is not set).
    public var isReliable: Bool { self != .udp }
}

/// Where the SIP user agent's bytes go out. Messages come in through the handler given when the
/// transport was opened, with the address a response must go back to.
public protocol SIPTransport: Sendable {
    var localPort: Int { get }
    func send(_ bytes: [UInt8], to address: SocketAddress)
    func close() async
}

extension UDPSocket: SIPTransport {}
