#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import NIOPosix

/// A bound UDP socket on SwiftNIO: datagrams in through a callback, datagrams out by address.
///
/// The callback runs on the socket's event loop and must not block: it parses and hands over.
public final class UDPSocket: Sendable {
    public typealias Handler = @Sendable (_ bytes: [UInt8], _ from: SocketAddress) -> Void
    /// A datagram sent to `address` drew an ICMP error (port or host unreachable): `reason` says which.
    public typealias Unreachable = @Sendable (_ address: SocketAddress, _ reason: String) -> Void

    private let channel: any Channel
    public let localPort: Int

    private final class Inbound: ChannelInboundHandler, Sendable {
        typealias InboundIn = AddressedEnvelope<ByteBuffer>
        let handler: Handler
        let errors: UDPErrorQueue?

        init(_ handler: @escaping Handler, errors: UDPErrorQueue?) {
            self.handler = handler
            self.errors = errors
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let envelope = Self.unwrapInboundIn(data)
            var buffer = envelope.data
            handler(buffer.readBytes(length: buffer.readableBytes) ?? [], envelope.remoteAddress)
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            // ICMP port unreachable and friends surface here on UDP; the socket stays open. With an
            // error queue, the errors are read from it (each with its address), which also lowers the
            // socket's error flag.
            errors?.drain()
        }
    }

    private init(channel: any Channel) {
        self.channel = channel
        self.localPort = channel.localAddress?.port ?? 0
    }

    /// Binds `host:port` (port 0 picks a free one). With `unreachable`, the ICMP errors the
    /// socket's datagrams draw are reported with the address each went to (Linux; see UDPErrorQueue).
    public static func bind(host: String, port: Int, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
                            unreachable: Unreachable? = nil, handler: @escaping Handler) async throws -> UDPSocket {
        let bootstrap = { (errors: UDPErrorQueue?) in
            DatagramBootstrap(group: group)
                .channelOption(.socketOption(.so_reuseaddr), value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(Inbound(handler, errors: errors))
                    }
                }
        }
        guard let unreachable else {
            return UDPSocket(channel: try await bootstrap(nil).bind(host: host, port: port).get())
        }
        // Our own socket, so that its descriptor is known to read the error queue from.
        let address = try SocketAddress.makeAddressResolvingHost(host, port: port)
        let descriptor = try openSocket(bindingTo: address)
        let errors = UDPErrorQueue(descriptor: descriptor, undeliverable: unreachable)
        do {
            return UDPSocket(channel: try await bootstrap(errors).withBoundSocket(descriptor).get())
        } catch {
            Glibc.close(descriptor)
            throw error
        }
    }

    /// A UDP socket bound to `address`, address reuse and ICMP error queueing on.
    private static func openSocket(bindingTo address: SocketAddress) throws -> CInt {
        let family = CInt(address.protocol.rawValue)
        let descriptor = socket(family, CInt(SOCK_DGRAM.rawValue) | CInt(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw IOError(errnoCode: errno, reason: "socket") }
        var on: CInt = 1
        let bound = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<CInt>.size)) == 0
            && UDPErrorQueue.enable(on: descriptor, family: family)
            && address.withSockAddr { Glibc.bind(descriptor, $0, socklen_t($1)) } == 0
        guard bound else {
            let code = errno
            Glibc.close(descriptor)
            throw IOError(errnoCode: code, reason: "bind")
        }
        return descriptor
    }

    public func send(_ bytes: [UInt8], to address: SocketAddress) {
        let envelope = AddressedEnvelope(remoteAddress: address, data: ByteBuffer(bytes: bytes))
        channel.writeAndFlush(envelope, promise: nil)
    }

    public func close() async {
        try? await channel.close()
    }
}
