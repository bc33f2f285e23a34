import NIOCore

/// Hands a connection's messages to its leg on the connection's event loop; a message that cannot
/// be taken, or the connection's end, ends the leg.
final class AudioSocketHandler: ChannelInboundHandler {
    typealias InboundIn = AudioSocketMessage

    private let leg: AudioSocketLeg

    init(leg: AudioSocketLeg) { self.leg = leg }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        leg.receive(unwrapInboundIn(data))
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        leg.end(because: "\(error)")
    }

    func channelInactive(context: ChannelHandlerContext) {
        leg.finish()
        context.fireChannelInactive()
    }
}
