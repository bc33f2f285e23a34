import Foundation
import NIOCore
import NIOEmbedded
import Testing
@testable import Bridge

/// AudioSocket's framing, both ways: each message written and read back whole, however the bytes
/// arrive; what cannot be taken is refused with the reason, and a connection that ends inside a
/// message says so.
@Suite struct AudioSocketMessageTests {
    static let messages: [AudioSocketMessage] = [
        .uuid(UUID(uuidString: "40325EC2-5EFD-4BD3-805F-53576E581D13")!), .audio((0..<160).map { Int16($0 * 200 - 16_000) }),
        .dtmf("#"), .dtmf("7"), .audio([]), .error(code: 3), .error(code: nil), .hangUp,
    ]

    @Test func everyMessageReadsBackAsWrittenEvenOneByteAtATime() throws {
        var wire = ByteBufferAllocator().buffer(capacity: 1024)
        for message in Self.messages { message.write(to: &wire) }
        #expect(wire.getBytes(at: 0, length: 3) == [0x01, 0x00, 0x10], "the UUID message's header: kind 1, 16 bytes")
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(AudioSocketDecoder()))
        while let byte = wire.readBytes(length: 1) {
            try channel.writeInbound(channel.allocator.buffer(bytes: byte))
        }
        var read: [AudioSocketMessage] = []
        while let message = try channel.readInbound(as: AudioSocketMessage.self) { read.append(message) }
        #expect(read == Self.messages)
        #expect(try channel.finish().isClean)
    }

    @Test func whatCannotBeTakenIsRefusedWithItsReason() {
        let cases: [(UInt8, [UInt8], String)] = [
            (0x01, [1, 2, 3], "a UUID message carries 16 bytes, not 3"),
            (0x10, [1, 2, 3], "audio of an odd number of bytes (3)"),
            (0x03, [UInt8(ascii: "x")], "a DTMF message carries one of 0-9 * # A-D"),
            (0x12, [0, 0], "audio of kind 0x12 (a rate above 8 kHz) is not spoken here: send signed linear at 8 kHz (0x10)"),
            (0x42, [], "no message has kind 0x42"),
        ]
        for (kind, payload, reason) in cases {
            #expect(throws: AudioSocketMessage.Malformed(description: reason)) {
                try AudioSocketMessage.parse(kind: kind, payload: ByteBuffer(bytes: payload))
            }
        }
    }

    @Test func aConnectionThatEndsInsideAMessageSaysSo() throws {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(AudioSocketDecoder()))
        try channel.writeInbound(ByteBuffer(bytes: [0x10, 0x01, 0x40] + [UInt8](repeating: 0, count: 100)))   // 320 announced, 100 sent
        #expect(try channel.readInbound(as: AudioSocketMessage.self) == nil, "nothing until the message is whole")
        #expect(throws: AudioSocketDecoder.EndedMidMessage.self) { _ = try channel.finish() }
    }
}
