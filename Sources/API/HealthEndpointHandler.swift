import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTPTypes

/// Answers `GET /healthz` on the connection's event loop, before the request reaches Hummingbird's
/// responder, which runs in a task on Swift's cooperative pool: when every pool thread is stuck in
/// a C call the router never runs, and this answer ("cooperative_pool": "stalled", 503) is the only
/// one a load balancer or an operator still gets. The database state comes from the heartbeat's
/// last check (`HealthMonitor.databaseOK`), so nothing here waits.
///
/// Only a request that arrives while the connection has no other request in flight is taken, so
/// responses stay in request order; the router's `/healthz` answers the rest with the same report.
final class HealthEndpointHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private enum State {
        /// Requests go on to Hummingbird; `inFlight` of them have not been answered yet.
        case forwarding(inFlight: Int)
        /// A `/healthz` request is being answered here; its body and end are dropped.
        case answering(closeAfter: Bool)
    }

    private let server: VoiceBridgeServer
    private var state = State.forwarding(inFlight: 0)

    init(server: VoiceBridgeServer) {
        self.server = server
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        switch (state, part) {
        case (.forwarding(0), .head(let request)) where Self.isHealthCheck(request) && server.answersHere(request):
            state = .answering(closeAfter: request.headerFields[.connection]?.lowercased() == "close")
        case (.forwarding(let inFlight), .head):
            state = .forwarding(inFlight: inFlight + 1)
            context.fireChannelRead(data)
        case (.forwarding, _):
            context.fireChannelRead(data)
        case (.answering(let closeAfter), .end):
            state = .forwarding(inFlight: 0)
            respond(context: context, closeAfter: closeAfter)
        case (.answering, _):
            break
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data), case .forwarding(let inFlight) = state, inFlight > 0 {
            state = .forwarding(inFlight: inFlight - 1)
        }
        context.write(data, promise: promise)
    }

    static func isHealthCheck(_ request: HTTPRequest) -> Bool {
        guard request.method == .get, let path = request.path else { return false }
        return path == "/healthz" || path.hasPrefix("/healthz?")
    }

    private func respond(context: ChannelHandlerContext, closeAfter: Bool) {
        let (report, status) = server.healthReport(databaseOK: server.health.databaseOK)
        let body = (try? JSONEncoder().encode(report)) ?? Data(#"{"status":"stalled"}"#.utf8)
        var fields = HTTPFields()
        fields[.contentType] = "application/json; charset=utf-8"
        fields[.contentLength] = String(body.count)
        fields[.cacheControl] = "no-store"
        if closeAfter { fields[.connection] = "close" }
        context.write(wrapOutboundOut(.head(HTTPResponse(status: status, headerFields: fields))), promise: nil)
        context.write(wrapOutboundOut(.body(context.channel.allocator.buffer(bytes: body))), promise: nil)
        let done = context.writeAndFlushPromise(wrapOutboundOut(.end(nil)))
        if closeAfter {
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            done.whenComplete { _ in bound.value.close(promise: nil) }
        }
    }
}

private extension ChannelHandlerContext {
    func writeAndFlushPromise(_ data: NIOAny) -> EventLoopFuture<Void> {
        let promise = eventLoop.makePromise(of: Void.self)
        writeAndFlush(data, promise: promise)
        return promise.futureResult
    }
}
