import NIOCore
import NIOPosix
import Pipeline

/// A bound UDP socket on SwiftNIO: datagrams in through a callback, datagrams out by address.
///
/// The callback runs on the socket's event loop and must not block: it parses and hands over.
public final class UDPSocket: Sendable {
    public typealias Handler = @Sendable (_ bytes: [UInt8], _ from: SocketAddress) -> Void

    private let channel: any Channel
    public let localPort: Int

    private final class Inbound: ChannelInboundHandler, Sendable {
        typealias InboundIn = AddressedEnvelope<ByteBuffer>
        let handler: Handler

        init(_ handler: @escaping Handler) { self.handler = handler }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let envelope = Self.unwrapInboundIn(data)
            var buffer = envelope.data
            handler(buffer.readBytes(length: buffer.readableBytes) ?? [], envelope.remoteAddress)
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            // ICMP port unreachable and friends surface here on UDP; the socket stays open.
        }
    }

    private init(channel: any Channel) {
        self.channel = channel
        self.localPort = channel.localAddress?.port ?? 0
    }

    /// Binds `host:port` (port 0 picks a free one). Without SO_REUSEADDR: on Linux it lets a second
    /// UDP socket that sets it bind a port already bound, and the newer takes the datagrams — two
    /// servers on one host with overlapping RTP ranges each "opened" the same port and one call's
    /// media went to the other's (the bind must fail, so `RTPSession.open` tries the next pair).
    public static func bind(host: String, port: Int, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
                            handler: @escaping Handler) async throws -> UDPSocket {
        // Real I/O on an event loop: in virtual time, time stands still until it is done (a SIP
        // dialog's timers were set while its RTP port was being opened or closed).
        let channel = try await VirtualTimeExecutor.outside {
            try await DatagramBootstrap(group: group)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(Inbound(handler))
                    }
                }
                .bind(host: host, port: port)
                .get()
        }
        return UDPSocket(channel: channel)
    }

    public func send(_ bytes: [UInt8], to address: SocketAddress) {
        let envelope = AddressedEnvelope(remoteAddress: address, data: ByteBuffer(bytes: bytes))
        channel.writeAndFlush(envelope, promise: nil)
    }

    public func close() async {
        await VirtualTimeExecutor.outside { try? await channel.close() }
    }
}
