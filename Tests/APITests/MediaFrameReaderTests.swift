import Bridge
import Logging
import NIOCore
import NIOEmbedded
import NIOWebSocket
import Pipeline
import Testing
@testable import API

/// The event-loop frame reader's hand-over, step by step on an `EmbeddedChannel`: the sentinel
/// goes out first, frames wait until `release()`, then pass to the leg in order; whatever is not
/// a whole text frame passes on to Hummingbird untouched.
@Suite struct MediaFrameReaderTests {
    static func text(_ s: String) -> WebSocketFrame {
        WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: s))
    }

    static func media(_ n: Int) -> String {
        #"{"event":"media","media":{"timestamp":"\#(n * 20)","payload":"\#(["AA==", "AQ==", "Ag==", "Aw=="][n % 4])"},"streamSid":"MZ1"}"#
    }

    @Test func holdsFramesUntilReleasedThenDeliversThemInOrder() async throws {
        let leg = MediaStreamSocketLeg(scheduler: PacerScheduler(), logger: Logger(label: "test"),
                                  socket: .init(send: { _ in }, close: {}))
        // What the route's reader already handed over (queued before the handler was added).
        leg.receive(#"{"event":"start","start":{"streamSid":"MZ1","callSid":"CA1"},"streamSid":"MZ1"}"#)
        leg.receive(Self.media(0))

        let channel = EmbeddedChannel()
        let reader = MediaFrameReader(leg: leg)
        try channel.pipeline.syncOperations.addHandler(reader)
        let sentinel = try #require(try channel.readInbound(as: WebSocketFrame.self))
        #expect(sentinel.opcode == .binary && sentinel.data == reader.token, "the sentinel goes down the async stream first")

        try channel.writeInbound(Self.text(Self.media(1)))
        try channel.writeInbound(WebSocketFrame(fin: true, opcode: .binary, data: ByteBuffer(bytes: [1, 2])))
        try channel.writeInbound(WebSocketFrame(fin: false, opcode: .text, data: ByteBuffer(string: "{\"ev")))
        try channel.writeInbound(Self.text(Self.media(2)))
        #expect(try channel.readInbound(as: WebSocketFrame.self)?.opcode == .binary, "binary frames pass on")
        #expect(try channel.readInbound(as: WebSocketFrame.self)?.fin == false, "fragments pass on")
        #expect(try channel.readInbound(as: WebSocketFrame.self) == nil, "whole text frames do not")

        reader.release()
        try channel.writeInbound(Self.text(Self.media(3)))
        try channel.writeInbound(Self.text(#"{"event":"stop","streamSid":"MZ1"}"#))
        try channel.writeInbound(Self.text(Self.media(4)))   // after stop: dropped

        var timestamps: [Int] = []
        for await event in leg.events {
            if case .media(let m) = event { timestamps.append(m.timestamp) }
        }
        #expect(timestamps == [0, 20, 40, 60], "held frames delivered on release, in order, nothing after stop")
        _ = try channel.finish()
    }

    @Test func aFloodBeforeReleaseIsBounded() throws {
        let leg = MediaStreamSocketLeg(scheduler: PacerScheduler(), logger: Logger(label: "test"),
                                  socket: .init(send: { _ in }, close: {}))
        let channel = EmbeddedChannel()
        let reader = MediaFrameReader(leg: leg)
        try channel.pipeline.syncOperations.addHandler(reader)
        for n in 0..<(MediaFrameReader.maximumHeld + 100) { try channel.writeInbound(Self.text(Self.media(n))) }
        #expect(reader.heldCount == MediaFrameReader.maximumHeld)
        reader.release()
        #expect(reader.heldCount == 0)
        _ = try channel.finish()
    }

    /// Counts the read-completes that reach the handler after the reader (Hummingbird's).
    final class ReadCompletes: ChannelInboundHandler {
        typealias InboundIn = WebSocketFrame
        var count = 0
        func channelReadComplete(context: ChannelHandlerContext) { count += 1 }
    }

    @Test func aReadCompleteGoesOnOnlyAfterFramesThatDid() throws {
        let leg = MediaStreamSocketLeg(scheduler: PacerScheduler(), logger: Logger(label: "test"),
                                  socket: .init(send: { _ in }, close: {}))
        let channel = EmbeddedChannel()
        let reader = MediaFrameReader(leg: leg)
        let completes = ReadCompletes()
        try channel.pipeline.syncOperations.addHandlers([reader, completes])
        reader.release()
        let before = completes.count
        try channel.writeInbound(Self.text(Self.media(0)))   // writeInbound ends with a read-complete
        #expect(completes.count == before, "media only: the read-complete stays here")
        try channel.writeInbound(WebSocketFrame(fin: true, opcode: .ping, data: ByteBuffer(string: "p")))
        #expect(completes.count == before + 1, "a frame went on: so does its read-complete")
        try channel.writeInbound(Self.text(Self.media(1)))
        #expect(completes.count == before + 1, "and only once")
        _ = try channel.finish()
    }
}
