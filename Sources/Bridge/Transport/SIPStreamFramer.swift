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
    /// How far the message at the front of the buffer has been read, so a message arriving in many
    /// small segments is scanned once, not once per segment (counted in readable bytes).
    private var pending = Pending.header(searched: 0)

    private enum Pending {
        /// The blank line was not found in the first `searched` bytes.
        case header(searched: Int)
        /// The header is whole; the message is `length` bytes long.
        case body(length: Int)
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let message = try nextMessage(in: &buffer) else { return .needMoreData }
        context.fireChannelRead(Self.wrapInboundOut(message))
        return .continue
    }

    /// The next whole message, consumed from `buffer`; nil when more bytes are needed (call again
    /// with the same buffer once more have been appended).
    mutating func nextMessage(in buffer: inout ByteBuffer) throws(Failure) -> [UInt8]? {
        let length: Int
        switch pending {
        case .body(let known):
            length = known
        case .header(let searched):
            if searched == 0 {
                let crlf = buffer.readableBytesView.prefix { $0 == 13 || $0 == 10 }.count
                buffer.moveReaderIndex(forwardBy: crlf)
            }
            let view = buffer.readableBytesView
            guard let end = Self.headerEnd(view, from: view.startIndex + max(0, searched - 3)) else {
                if view.count > maximumHeader { throw .headerTooLong }
                pending = .header(searched: view.count)
                return nil
            }
            let headerLength = end - view.startIndex
            guard headerLength <= maximumHeader else { throw .headerTooLong }
            let bodyLength = try Self.contentLength(view[view.startIndex..<end])
            guard bodyLength <= maximumBody else { throw .bodyTooLong }
            length = headerLength + bodyLength
        }
        guard buffer.readableBytes >= length else {
            pending = .body(length: length)
            return nil
        }
        pending = .header(searched: 0)
        return buffer.readBytes(length: length)
    }

    /// The index just past the blank line that ends the header, searching from `start`.
    private static func headerEnd(_ view: ByteBufferView, from start: Int) -> Int? {
        var i = start
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
