import NIOCore
import CoreMetrics

/// The first handler on every HTTP connection, before any parsing: it holds the server's
/// connection caps (`http.max_connections` in all, `http.max_connections_per_address` from one
/// address or IPv6 /64 — a connection over either is closed at once and counted) and every
/// deadline a connection has before it has earned its keep, so that no connection, authenticated
/// or not, is held for free:
///
/// - a request head must be parsed within `http.header_timeout_seconds` of the connection opening,
///   or of the first byte after the previous response (a kept-alive connection that sends nothing
///   is Hummingbird's idle timeout's);
/// - a body must come at `http.min_body_bytes_per_second` or more, measured over windows of the
///   header timeout, until it ends (a body that is answered 401 before it is read too);
/// - on a WebSocket, a frame whose first bytes came must be whole within the header timeout.
///
/// What counts as a head, a body's end or a whole frame is what the parsers say, not what these
/// bytes look like: `HTTPRequestProgress` (after the HTTP parser), the upgrade decision and
/// `WebSocketFrameProgress` (after the frame decoder) send `Progress` back up the pipeline here.
/// (`\r\n\r\n` and then silence is no head: the parser skips empty lines.)
final class HTTPConnectionGuard: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// What the parsers further down the pipeline tell the guard (as outbound user events).
    enum Progress: Sendable {
        case headParsed
        case requestEnded
        case responseEnded
        case upgraded
        case frameCompleted
    }

    private enum State {
        /// Waiting for a head since `since` (the deadline runs).
        case awaitingHead
        /// A head was parsed; the body is read, `bytes` of it in this window.
        case readingBody(bytes: Int)
        /// The request is read and being answered, or answered with nothing read since:
        /// Hummingbird's idle timeout decides.
        case responding
        case betweenRequests
        /// A WebSocket: `midFrameSince` is when bytes of a frame not yet whole first came.
        case webSocket(midFrameSince: NIODeadline?)
    }

    private let table: ConnectionTable
    private let window: TimeAmount
    private let minimumBodyBytesPerSecond: Int
    private var state = State.awaitingHead
    private var timer: Scheduled<Void>?
    private var address = "?"

    init(table: ConnectionTable, headerTimeout: TimeAmount, minimumBodyBytesPerSecond: Int) {
        self.table = table
        window = headerTimeout
        self.minimumBodyBytesPerSecond = minimumBodyBytesPerSecond
    }

    func channelActive(context: ChannelHandlerContext) {
        let key = ConnectionTable.key(for: context.remoteAddress)
        guard table.admit(key) else {
            context.close(promise: nil)
            return
        }
        let table = table
        context.channel.closeFuture.whenComplete { _ in table.release(key) }
        address = key
        arm(context, in: window)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let count = unwrapInboundIn(data).readableBytes
        switch state {
        case .readingBody(let bytes):
            state = .readingBody(bytes: bytes + count)
        case .betweenRequests where count > 0:
            state = .awaitingHead
            arm(context, in: window)
        case .webSocket(nil) where count > 0:
            // One timer a window at most, not one a read (a media stream reads fifty times a
            // second): a frame made whole clears the mark, and the timer looks at it when it comes.
            state = .webSocket(midFrameSince: .now())
            if timer == nil { arm(context, in: window) }
        default:
            break
        }
        context.fireChannelRead(data)
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard let progress = event as? Progress else {
            context.triggerUserOutboundEvent(event, promise: promise)
            return
        }
        promise?.succeed(())
        switch (progress, state) {
        case (.headParsed, _):
            state = .readingBody(bytes: 0)
            arm(context, in: window)
        case (.requestEnded, _):
            state = .responding
            disarm()
        case (.responseEnded, .responding):
            state = .betweenRequests
        case (.upgraded, _):
            state = .webSocket(midFrameSince: nil)
            disarm()
        case (.frameCompleted, .webSocket):
            state = .webSocket(midFrameSince: nil)
        default:
            break
        }
    }

    /// The deadline for what the connection is doing now: checked when it comes, not before.
    private func arm(_ context: ChannelHandlerContext, in delay: TimeAmount) {
        timer?.cancel()
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(in: delay) {
            let (handler, context) = loopBound.value
            handler.deadlinePassed(context)
        }
    }

    private func disarm() {
        timer?.cancel()
        timer = nil
    }

    private func deadlinePassed(_ context: ChannelHandlerContext) {
        timer = nil
        switch state {
        case .awaitingHead:
            close(context)   // no request head within the header timeout
        case .readingBody(let bytes):
            let needed = minimumBodyBytesPerSecond * Int(window.nanoseconds / 1_000_000_000)
            guard bytes >= needed else { return close(context) }   // a body slower than the minimum rate
            state = .readingBody(bytes: 0)
            arm(context, in: window)
        case .webSocket(.some(let since)):
            let waited = NIODeadline.now() - since
            guard waited < window else { return close(context) }   // a frame not whole within the window
            arm(context, in: window - waited)
        case .responding, .betweenRequests, .webSocket(nil):
            break
        }
    }

    private func close(_ context: ChannelHandlerContext) {
        table.timedOut.increment()
        context.close(promise: nil)
    }
}
