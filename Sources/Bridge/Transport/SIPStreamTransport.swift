import Logging
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// SIP over TCP or TLS: a listener for peers that connect to us, and connections we open to peers
/// we send to, all in one table keyed by the peer's address. A response goes back on the
/// connection its request came in on; a request to an address with no connection opens one
/// (RFC 3261 §18.1.1, §18.2.2). Messages are framed by `SIPStreamFramer`.
public final class SIPStreamTransport: SIPTransport {
    public typealias Handler = UDPSocket.Handler
    /// A peer we opened a connection to could not be reached (refused, timed out, TLS failed):
    /// what was sent to it is lost, and whoever waits for an answer can stop waiting (RFC 3261 §8.1.3.1).
    public typealias Unreachable = @Sendable (SocketAddress, String) -> Void
    /// A connection from this address was closed at once: the table, or the address's share of it, was full.
    public typealias Refused = @Sendable (SocketAddress) -> Void
    /// A connection's bytes could not be cut into SIP messages (a bad or huge Content-Length, a
    /// header past the limit): the connection was closed, and the stream counts as malformed.
    public typealias Unframeable = @Sendable (SocketAddress) -> Void

    /// Certificates for SIP over TLS: ours (PEM chain and key) and, optionally, the authorities we
    /// trust for peers (the system's when nil). Peers we connect to are verified, IP SANs included.
    public struct TLSFiles: Sendable, Equatable {
        public var certificateChain: String
        public var privateKey: String
        public var trustedAuthorities: String?

        public init(certificateChain: String, privateKey: String, trustedAuthorities: String? = nil) {
            self.certificateChain = certificateChain
            self.privateKey = privateKey
            self.trustedAuthorities = trustedAuthorities
        }
    }

    /// More connections than this (both directions) and new ones are refused: the table is bounded.
    public static let maximumConnections = 1024
    /// Connections one IP address may hold open to us: one host cannot take the whole table and
    /// lock every other caller out. A proxy or trunk in front needs a handful.
    public static let maximumConnectionsPerAddress = 32
    /// Bytes waiting for a connection being opened to one peer.
    static let maximumPending = 256 * 1024

    private enum Connection {
        case open(any Channel)
        case connecting([ByteBuffer], bytes: Int)
    }

    public let localPort: Int
    private let listener: any Channel
    private let group: any EventLoopGroup
    private let client: NIOSSLContext?
    private let server: NIOSSLContext?
    private let handler: Handler
    private let unreachable: Unreachable
    private let refused: Refused
    private let unframeable: Unframeable
    private let logger: Logger
    /// A connection that has not delivered one whole message by then is closed (a TLS handshake
    /// never finished, a peer that connects and sends nothing): it would hold a slot of the table.
    private let firstMessageDeadline: TimeAmount
    private let connections = Mutex<[SocketAddress: Connection]>([:])

    private init(listener: any Channel, group: any EventLoopGroup, client: NIOSSLContext?, server: NIOSSLContext?, logger: Logger,
                 firstMessageDeadline: TimeAmount, unreachable: @escaping Unreachable, refused: @escaping Refused,
                 unframeable: @escaping Unframeable, handler: @escaping Handler) {
        self.listener = listener
        self.localPort = listener.localAddress?.port ?? 0
        self.group = group
        self.client = client
        self.server = server
        self.logger = logger
        self.firstMessageDeadline = firstMessageDeadline
        self.handler = handler
        self.unreachable = unreachable
        self.refused = refused
        self.unframeable = unframeable
    }

    /// Listens on `host:port` (port 0 picks one); TLS (1.2 or later) when `tls` is given.
    public static func listen(host: String, port: Int, tls: TLSFiles?, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
                              logger: Logger = Logger(label: "sip-transport"), firstMessageDeadline: TimeAmount = .seconds(30),
                              unreachable: @escaping Unreachable = { _, _ in }, refused: @escaping Refused = { _ in },
                              unframeable: @escaping Unframeable = { _ in }, handler: @escaping Handler) async throws -> SIPStreamTransport {
        var server: NIOSSLContext?
        var client: NIOSSLContext?
        if let tls {
            let chain = try NIOSSLCertificate.fromPEMFile(tls.certificateChain).map { NIOSSLCertificateSource.certificate($0) }
            let key = try NIOSSLPrivateKey(file: tls.privateKey, format: .pem)
            var serverConfiguration = TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key))
            serverConfiguration.minimumTLSVersion = .tlsv12
            server = try NIOSSLContext(configuration: serverConfiguration)
            var clientConfiguration = TLSConfiguration.makeClientConfiguration()
            clientConfiguration.minimumTLSVersion = .tlsv12
            if let authorities = tls.trustedAuthorities { clientConfiguration.trustRoots = .file(authorities) }
            clientConfiguration.certificateChain = chain
            clientConfiguration.privateKey = .privateKey(key)
            client = try NIOSSLContext(configuration: clientConfiguration)
        }
        let box = Mutex<SIPStreamTransport?>(nil)
        let listener = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                guard let transport = box.withLock({ $0 }) else { return channel.close() }
                return channel.eventLoop.makeCompletedFuture { try transport.configure(channel, connectedTo: nil) }
            }
            .bind(host: host, port: port)
            .get()
        let transport = SIPStreamTransport(listener: listener, group: group, client: client, server: server, logger: logger,
                                           firstMessageDeadline: firstMessageDeadline, unreachable: unreachable, refused: refused, unframeable: unframeable, handler: handler)
        box.withLock { $0 = transport }
        return transport
    }

    public func send(_ bytes: [UInt8], to address: SocketAddress) {
        let buffer = ByteBuffer(bytes: bytes)
        enum Action { case write(any Channel), queuedOrDropped, connect }
        let action: Action = connections.withLock { table in
            switch table[address] {
            case .open(let channel): return .write(channel)
            case .connecting(var queued, let size):
                guard size + buffer.readableBytes <= Self.maximumPending else { return .queuedOrDropped }   // dropped: the peer is not taking bytes
                queued.append(buffer)
                table[address] = .connecting(queued, bytes: size + buffer.readableBytes)
                return .queuedOrDropped
            case nil:
                guard table.count < Self.maximumConnections else { return .queuedOrDropped }   // dropped: as a datagram would be
                table[address] = .connecting([buffer], bytes: buffer.readableBytes)
                return .connect
            }
        }
        switch action {
        case .write(let channel): channel.writeAndFlush(buffer, promise: nil)
        case .queuedOrDropped: break
        case .connect: connect(to: address)
        }
    }

    private func connect(to address: SocketAddress) {
        ClientBootstrap(group: group)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connectTimeout(.seconds(5))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try self.configure(channel, connectedTo: address) }
            }
            .connect(to: address)
            .whenFailure { error in
                // A connect that succeeded is handled by `opened`, on the channel's loop before any read.
                let wasConnecting = self.connections.withLock { table in
                    guard case .connecting = table[address] else { return false }
                    table[address] = nil   // what was queued is lost, as a datagram to a dead host would be
                    return true
                }
                guard wasConnecting else { return }
                self.logger.warning("cannot connect to SIP peer", metadata: ["peer": "\(address)", "error": "\(error)"])
                self.unreachable(address, "\(error)")
            }
    }

    /// A connection we opened is up: it takes its place in the table and sends what waited for it.
    /// This runs on the channel's loop when it becomes active, so before anything it reads: the
    /// bootstrap's future completes on the caller's side of a thread hop, and a TLS handshake that
    /// fails before that would find the connection not yet in the table and leave it there.
    fileprivate func opened(_ channel: any Channel, remote: SocketAddress) {
        let queued: [ByteBuffer]? = connections.withLock { table in
            guard case .connecting(let queued, _) = table[remote] else { return nil }
            table[remote] = .open(channel)
            return queued
        }
        guard let queued else {   // the transport was closed while this connection was being opened
            channel.close(promise: nil)
            return
        }
        for buffer in queued { channel.write(buffer, promise: nil) }
        channel.flush()
    }

    /// TLS (server side for a connection we accepted, client side for one we open to `peer`),
    /// the framer, and the hand-over to `handler`.
    private func configure(_ channel: any Channel, connectedTo peer: SocketAddress?) throws {
        let pipeline = channel.pipeline.syncOperations
        let remote: SocketAddress
        if let peer {
            remote = peer
            if let client { try pipeline.addHandler(NIOSSLClientHandler(context: client, serverHostname: nil)) }
        } else {
            guard let accepted = channel.remoteAddress, register(channel, remote: accepted) else {
                if let address = channel.remoteAddress { refused(address) }
                channel.close(promise: nil)
                return
            }
            remote = accepted
            if let server { try pipeline.addHandler(NIOSSLServerHandler(context: server)) }
        }
        try pipeline.addHandler(IdleStateHandler(readTimeout: firstMessageDeadline))
        try pipeline.addHandler(ByteToMessageHandler(SIPStreamFramer()))
        try pipeline.addHandler(Inbound(transport: self, remote: remote, opened: peer != nil))
    }

    private func register(_ channel: any Channel, remote: SocketAddress) -> Bool {
        connections.withLock { table in
            guard table.count < Self.maximumConnections,
                  table.keys.lazy.filter({ $0.ipAddress == remote.ipAddress }).count < Self.maximumConnectionsPerAddress else { return false }
            table[remote] = .open(channel)
            return true
        }
    }

    fileprivate func closed(_ channel: any Channel, remote: SocketAddress) {
        connections.withLock { table in
            if case .open(let current) = table[remote], current === channel { table[remote] = nil }
        }
    }

    fileprivate func deliver(_ bytes: [UInt8], from remote: SocketAddress) { handler(bytes, remote) }

    fileprivate func lost(_ remote: SocketAddress, _ error: any Error) { unreachable(remote, "\(error)") }

    fileprivate func cannotFrame(_ remote: SocketAddress) { unframeable(remote) }

    public var connectionCount: Int { connections.withLock { $0.count } }

    public func close() async {
        try? await listener.close()
        let open = connections.withLock { table -> [any Channel] in
            defer { table.removeAll() }
            return table.values.compactMap { if case .open(let channel) = $0 { channel } else { nil } }
        }
        for channel in open { try? await channel.close() }
    }

    private final class Inbound: ChannelInboundHandler {
        typealias InboundIn = [UInt8]
        let transport: SIPStreamTransport
        /// The table's key for this connection: where responses and requests to the peer go.
        let remote: SocketAddress
        /// We opened this connection (to send a request), rather than accepted it.
        let opened: Bool
        /// Set by the first whole message; touched only on the channel's event loop.
        var delivered = false

        init(transport: SIPStreamTransport, remote: SocketAddress, opened: Bool) {
            self.transport = transport
            self.remote = remote
            self.opened = opened
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            delivered = true
            transport.deliver(Self.unwrapInboundIn(data), from: remote)
        }

        /// Quiet connections stay (a call's SIP is silent while it lasts), unless nothing ever came.
        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if let idle = event as? IdleStateHandler.IdleStateEvent, idle == .read, !delivered {
                context.close(promise: nil)
                return
            }
            context.fireUserInboundEventTriggered(event)
        }

        func channelActive(context: ChannelHandlerContext) {
            context.fireChannelActive()
            if opened { transport.opened(context.channel, remote: remote) }
        }

        func channelInactive(context: ChannelHandlerContext) {
            transport.closed(context.channel, remote: remote)
            context.fireChannelInactive()
        }

        /// A stream that cannot be framed, or a failed TLS handshake: the connection goes. On one we
        /// opened that never brought an answer (a certificate we do not trust), the peer is unreachable.
        /// It leaves the table at once, before the peer is reported: its close can take NIOSSL's
        /// shutdown timeout (5 s) while it waits for the peer's close_notify, and a message sent to
        /// the peer meanwhile must open a new connection, not go into this one.
        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            transport.logger.info("SIP connection closed on error", metadata: ["peer": "\(remote)", "error": "\(error)"])
            transport.closed(context.channel, remote: remote)
            if error is SIPStreamFramer.Failure { transport.cannotFrame(remote) }
            if opened && !delivered { transport.lost(remote, error) }
            context.close(promise: nil)
        }
    }
}
