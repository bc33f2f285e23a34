import Foundation
import Logging
import NIOCore
import NIOEmbedded
import NIOWebSocket
import Testing
@testable import API
@testable import Bridge
@testable import Calls

/// The media tick's writes into a stream's channel: text frames, in order; while the peer is not
/// reading (the channel is not writable) audio is dropped, marks and clears still go.
@Suite struct MediaChannelWriterTests {
    @Test func audioIsDroppedWhileTheChannelIsNotWritableMarksAreNot() throws {
        var config = VoiceBridgeConfig()
        config.database.path = FileManager.default.temporaryDirectory.appendingPathComponent("vb-writer-\(UUID().uuidString).sqlite").path
        let server = VoiceBridgeServer(config: config, store: try CallStore(path: config.database.path), logger: Logger(label: "test"))
        let channel = EmbeddedChannel()
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).wait()
        let write = server.channelWriter(channel)
        let tick = [MediaStreamSocketLeg.OutboundMessage(media: ByteBuffer(string: #"{"event":"media"}"#)),
                    MediaStreamSocketLeg.OutboundMessage(#"{"event":"mark"}"#)]

        func written() throws -> [String] {
            var texts: [String] = []
            while let frame = try channel.readOutbound(as: WebSocketFrame.self) {
                #expect(frame.opcode == .text && frame.fin)
                texts.append(String(buffer: frame.unmaskedData))
            }
            return texts
        }

        write(tick)
        #expect(try written() == [#"{"event":"media"}"#, #"{"event":"mark"}"#], "writable: both, in order")
        channel.isWritable = false
        write(tick)
        write(tick)
        #expect(try written() == [#"{"event":"mark"}"#, #"{"event":"mark"}"#], "not writable: the marks only")
        channel.isWritable = true
        write(tick)
        #expect(try written() == [#"{"event":"media"}"#, #"{"event":"mark"}"#], "audio again once it is writable")
        _ = try channel.finish()
    }
}
