import NIOCore

/// Cuts a SIP byte stream (TCP, TLS) into messages: the header up to the empty line, then as many
/// body bytes as Content-Length says (RFC 3261 §18.3; on a stream the header is mandatory, and
/// without it the body is empty). Keep-alive CRLFs between messages are skipped (RFC 5626 §3.5.1).
/// A header longer than `maximumHeader` or a body longer than `maximumBody` cannot be framed: the
/// decoder fails and the connection is closed, because the stream has no message boundary left.
struct SIPStreamFramer: ByteToMessageDecoder {
    typealias InboundOut = [UInt8]

    enum Failure: Error, Equatable { case headerTooLong, bodyTooLong, badContentLength }

    var maximumHeader = 65_536
    var maximumBody = 65_536

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let message = try Self.nextMessage(in: &buffer, maximumHeader: maximumHeader, maximumBody: maximumBody) else { return .needMoreData }
        context.fireChannelRead(Self.wrapInboundOut(message))
        return .continue
    }

    /// The next whole message, consumed from `buffer`; nil when more bytes are needed.
    static func nextMessage(in buffer: inout ByteBuffer, maximumHeader: Int, maximumBody: Int) throws(Failure) -> [UInt8]? {
        let crlf = buffer.readableBytesView.prefix { $0 == 13 || $0 == 10 }.count
        buffer.moveReaderIndex(forwardBy: crlf)
        let view = buffer.readableBytesView
        guard let end = headerEnd(view) else {
            if view.count > maximumHeader { throw .headerTooLong }
            return nil
        }
        let headerLength = end - view.startIndex
        guard headerLength <= maximumHeader else { throw .headerTooLong }
        let bodyLength = try contentLength(view[view.startIndex..<end])
        guard bodyLength <= maximumBody else { throw .bodyTooLong }
        guard view.count >= headerLength + bodyLength else { return nil }
        return buffer.readBytes(length: headerLength + bodyLength)
    }

    /// The index just past the blank line that ends the header.
    private static func headerEnd(_ view: ByteBufferView) -> Int? {
        var i = view.startIndex
        while i + 3 < view.endIndex {
            if view[i] == 13, view[i + 1] == 10, view[i + 2] == 13, view[i + 3] == 10 { return i + 4 }
            i += 1
        }
        return nil
    }

    /// Content-Length (or its compact form `l`), 0 when absent.
    private static func contentLength(_ header: ByteBufferView.SubSequence) throws(Failure) -> Int {
        for line in header.split(separator: 10) {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
            let name = String(decoding: line[line.startIndex..<colon], as: UTF8.self).trimmingCharacters(in: [" ", "\t"]).lowercased()
            guard name == "content-length" || name == "l" else { continue }
            let value = String(decoding: line[(colon + 1)...], as: UTF8.self).trimmingCharacters(in: [" ", "\t", "\r"])
            guard value.count <= 9, let length = Int(value), length >= 0 else { throw .badContentLength }
            return length
        }
        return 0
    }
}
