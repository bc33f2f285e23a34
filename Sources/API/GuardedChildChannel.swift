import HummingbirdCore
import Logging
import NIOCore

/// A server child channel with one handler put at the very front of its pipeline before the
/// wrapped channel sets up its own (HTTP parsing, the WebSocket upgrade): what must see a
/// connection from its first byte — `HTTPConnectionGuard` — goes there.
struct GuardedChildChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value
    let base: Base
    let makeHandler: @Sendable () -> any ChannelHandler

    init(base: Base, makeHandler: @escaping @Sendable () -> any ChannelHandler) {
        self.base = base
        self.makeHandler = makeHandler
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        do {
            try channel.pipeline.syncOperations.addHandler(makeHandler(), position: .first)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return base.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
