import Logging
import NIOConcurrencyHelpers
import NIOCore
import CoreMetrics

/// The first handler on every HTTP connection, before any parsing: it holds the server's
/// connection caps (`http.max_connections` in all, `http.max_connections_per_address` from one
/// address — a connection over either is closed at once and counted) and closes a connection that
/// has not brought a whole request head (up to the blank line) within `http.header_timeout_seconds`.
/// Hummingbird's own idle timeout (`http.idle_timeout_seconds`) takes over once a head has been
/// read — it is only set up then — so between them a half-sent request, a socket that sends
/// nothing and an idle keep-alive all end. Upgraded WebSockets are not timed by either: media
/// streams close on their own start timeout, and the event stream is meant to stay open.
final class HTTPConnectionGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// Live connections by address, shared by every connection of the server.
    final class Table: Sendable {
        let maxTotal: Int
        let maxPerAddress: Int
        private let counts = NIOLockedValueBox<(total: Int, byAddress: [String: Int])>((0, [:]))
        let refused: Counter

        init(maxTotal: Int, maxPerAddress: Int, metrics: any MetricsFactory) {
            self.maxTotal = maxTotal
            self.maxPerAddress = maxPerAddress
            refused = Counter(label: "voicebridge_http_connections_refused_total", dimensions: [], factory: metrics)
        }

        /// Takes a place for `address`; false (nothing taken) when a cap is reached.
        func admit(_ address: String) -> Bool {
            let admitted = counts.withLockedValue { counts -> Bool in
                guard counts.total < maxTotal, counts.byAddress[address, default: 0] < maxPerAddress else { return false }
                counts.total += 1
                counts.byAddress[address, default: 0] += 1
                return true
            }
            if !admitted { refused.increment() }
            return admitted
        }

        func release(_ address: String) {
            counts.withLockedValue { counts in
                counts.total -= 1
                let left = counts.byAddress[address, default: 1] - 1
                counts.byAddress[address] = left > 0 ? left : nil
            }
        }

        var live: Int { counts.withLockedValue { $0.total } }
    }

    private let table: Table
    private let headerTimeout: TimeAmount
    private var deadline: Scheduled<Void>?
    /// The last bytes read, to find "\r\n\r\n" split across reads.
    private var tail: [UInt8] = []

    init(table: Table, headerTimeout: TimeAmount) {
        self.table = table
        self.headerTimeout = headerTimeout
    }

    func channelActive(context: ChannelHandlerContext) {
        let address = context.remoteAddress?.ipAddress ?? "?"
        guard table.admit(address) else {
            context.close(promise: nil)
            return
        }
        // Released when the connection closes, wherever the guard is by then (it leaves the
        // pipeline once the head is read, so that a WebSocket's frames never pass through it).
        let table = table
        context.channel.closeFuture.whenComplete { _ in table.release(address) }
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        deadline = context.eventLoop.scheduleTask(in: headerTimeout) { loopBound.value.close(promise: nil) }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let ended = headEnds(in: unwrapInboundIn(data))
        context.fireChannelRead(data)
        if ended {
            // From here on Hummingbird's idle timeout (or the WebSocket's own rules) apply.
            deadline?.cancel()
            deadline = nil
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
    }

    /// Whether the bytes read so far hold the blank line that ends a request head.
    private func headEnds(in buffer: ByteBuffer) -> Bool {
        let bytes = tail + buffer.readableBytesView
        let end: [UInt8] = [13, 10, 13, 10]
        if bytes.count >= 4, (0...(bytes.count - 4)).contains(where: { bytes[$0..<($0 + 4)].elementsEqual(end) }) { return true }
        tail = Array(bytes.suffix(3))
        return false
    }
}
