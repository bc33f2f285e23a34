import NIOCore

/// Cuts a connection's bytes into AudioSocket messages. What it holds is bounded by the header:
/// at most one message of 3 + 65,535 bytes waits for its end. A message that cannot be taken
/// (`AudioSocketMessage.Malformed`), or a connection that ends inside a message, is an error the
/// next handler is told of.
struct AudioSocketDecoder: ByteToMessageDecoder {
    typealias InboundOut = AudioSocketMessage

    /// The connection ended inside a message (its header, or before its payload's end).
    struct EndedMidMessage: Error, CustomStringConvertible {
        let bytes: Int
        var description: String { "the peer stopped \(bytes) bytes into a message" }
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let kind = buffer.getInteger(at: buffer.readerIndex, as: UInt8.self),
              let length = buffer.getInteger(at: buffer.readerIndex + 1, endianness: .big, as: UInt16.self),
              buffer.readableBytes >= 3 + Int(length) else { return .needMoreData }
        buffer.moveReaderIndex(forwardBy: 3)
        let payload = buffer.readSlice(length: Int(length))!   // checked above
        context.fireChannelRead(wrapInboundOut(try AudioSocketMessage.parse(kind: kind, payload: payload)))
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        if buffer.readableBytes > 0 { throw EndedMidMessage(bytes: buffer.readableBytes) }
        return .needMoreData
    }
}
