import NIOCore
import NIOPosix
import Pipeline

/// Asks whether anything listens on a UDP address, the one way our shared SIP socket cannot.
///
/// The SIP socket is unconnected: Linux tells it nothing of the ICMP port-unreachable its datagrams
/// draw, and with IP_RECVERR the queued error fails the next send, which NIO takes as fatal and
/// closes the socket. A socket connected to one address does hear of it (ECONNREFUSED as SO_ERROR),
/// so the probe sends one empty datagram from such a socket and waits a moment for the answer. An
/// empty datagram is no SIP message; a listening peer drops it.
enum UDPPortProbe {
    /// True when the kernel reported the address's port unreachable within `wait`; false when nothing
    /// came back (a listener, a firewall that drops, or a slow network: the caller's timers decide),
    /// or when the task was cancelled first. A verdict settled twice keeps the first.
    static func isRefused(_ address: SocketAddress, wait: Duration = .seconds(2),
                          group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) async -> Bool {
        let loop = group.next()
        let verdict = loop.makePromise(of: Bool.self)
        let channel: any Channel
        do {
            channel = try await DatagramBootstrap(group: loop)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(RefusalWatcher(verdict))
                    }
                }
                .connect(to: address)
                .get()
        } catch {
            return false
        }
        let timeout = loop.scheduleTask(in: .nanoseconds(Int64(wait.totalNanoseconds))) { verdict.succeed(false) }
        channel.writeAndFlush(ByteBuffer(), promise: nil)
        // Cancelled (the user agent stopping), the probe gives up at once rather than after `wait`.
        let refused = await withTaskCancellationHandler {
            (try? await verdict.futureResult.get()) ?? false
        } onCancel: {
            verdict.succeed(false)
        }
        timeout.cancel()
        try? await channel.close()
        return refused
    }

    /// Settles the verdict on the first ECONNREFUSED the connected socket reports.
    private final class RefusalWatcher: ChannelInboundHandler, Sendable {
        typealias InboundIn = AddressedEnvelope<ByteBuffer>
        let verdict: EventLoopPromise<Bool>

        init(_ verdict: EventLoopPromise<Bool>) { self.verdict = verdict }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            if let error = error as? IOError, error.errnoCode == ECONNREFUSED { verdict.succeed(true) }
        }

        func channelInactive(context: ChannelHandlerContext) {
            verdict.succeed(false)
        }
    }
}
