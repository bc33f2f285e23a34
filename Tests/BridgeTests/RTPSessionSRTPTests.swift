import NIOCore
import Synchronization
import Testing
import TestLanes
import TestSupport
@testable import Bridge

/// Two RTP sessions on loopback with crossed SRTP keys, as two ends of a call would have them.
@Suite(.serialized, .tags(.timed)) struct RTPSessionSRTPTests {
    static func pair(requireSRTP: Bool = true, pool: RTPPortPool) async throws -> (RTPSession, RTPSession, Locked<[[UInt8]]>) {
        let a = SDESCrypto.fresh().keyAndSalt, b = SDESCrypto.fresh().keyAndSalt
        let alice = try await RTPSession.open(host: "127.0.0.1", pool: pool, requireSRTP: requireSRTP)
        let bob = try await RTPSession.open(host: "127.0.0.1", pool: pool, requireSRTP: requireSRTP)
        try alice.enableSRTP(SRTPKeys(local: a, remote: b))
        try bob.enableSRTP(SRTPKeys(local: b, remote: a))
        try alice.setRemote(host: "127.0.0.1", port: bob.localPort)
        let heard = Locked<[[UInt8]]>([])
        bob.setHandlers(media: { frame in heard.withLock { $0.append(frame) } }, dtmf: { _ in })
        return (alice, bob, heard)
    }

    static func talk(_ alice: RTPSession, _ bob: RTPSession, frames: [[UInt8]]) async throws {
        for frame in frames {
            alice.send(frame: frame)
            alice.tick()
            bob.tick()
            try await Task.sleep(for: .milliseconds(20))
        }
        for _ in 0..<12 { bob.tick(); try await Task.sleep(for: .milliseconds(20)) }   // drain the jitter buffer
    }

    @Test func framesSentUnderOneKeyArePlayedUnderTheOther() async throws {
        let pool = try RTPPortPool(range: 44000...44049)
        let (alice, bob, heard) = try await Self.pair(pool: pool)
        let frames = (0..<25).map { i in [UInt8](repeating: UInt8(i + 1), count: 160) }
        try await Self.talk(alice, bob, frames: frames)
        #expect(heard.withLock { $0 } == frames, "every frame arrived, decrypted, in order")
        #expect(bob.counters.srtpRejected == 0 && alice.isSRTP && bob.isSRTP)
        await alice.close(); await bob.close()
    }

    @Test func plainAndForgedPacketsAreDroppedCountedAndNeverPlayed() async throws {
        let pool = try RTPPortPool(range: 44050...44099)
        let (alice, bob, heard) = try await Self.pair(pool: pool)
        let intruder = try await UDPSocket.bind(host: "127.0.0.1", port: 0) { _, _ in }
        let target = try SocketAddress(ipAddress: "127.0.0.1", port: bob.localPort)
        let loud = [UInt8](repeating: 0x55, count: 160)
        for i in 0..<10 {   // plain RTP, then SRTP under a key bob does not have
            intruder.send(RTPPacket(marker: false, payloadType: 0, sequenceNumber: UInt16(i), timestamp: UInt32(i * 160), ssrc: 99, payload: loud).serialized(), to: target)
        }
        let eve = try SRTPSession(keys: SRTPKeys(local: SDESCrypto.fresh().keyAndSalt, remote: SDESCrypto.fresh().keyAndSalt))
        for i in 10..<20 {
            let packet = RTPPacket(marker: false, payloadType: 0, sequenceNumber: UInt16(i), timestamp: UInt32(i * 160), ssrc: 99, payload: loud).serialized()
            intruder.send(try #require(eve.protect(packet)), to: target)
        }
        let frames = (0..<10).map { i in [UInt8](repeating: UInt8(i + 1), count: 160) }
        try await Self.talk(alice, bob, frames: frames)
        #expect(bob.counters.srtpRejected == 20, "all 20 intruding packets counted")
        #expect(!heard.withLock { $0 }.contains(loud), "none of them was played")
        #expect(heard.withLock { $0 } == frames, "the real call was not disturbed, nor its media address hijacked")
        await intruder.close(); await alice.close(); await bob.close()
    }

    @Test func aRequiredSRTPSessionDropsEverythingBeforeItHasKeys() async throws {
        let pool = try RTPPortPool(range: 44100...44149)
        let waiting = try await RTPSession.open(host: "127.0.0.1", pool: pool, requireSRTP: true)
        let heard = Mutex(0)
        waiting.setHandlers(media: { _ in heard.withLock { $0 += 1 } }, dtmf: { _ in })
        let sender = try await UDPSocket.bind(host: "127.0.0.1", port: 0) { _, _ in }
        let target = try SocketAddress(ipAddress: "127.0.0.1", port: waiting.localPort)
        for i in 0..<5 {
            sender.send(RTPPacket(marker: false, payloadType: 0, sequenceNumber: UInt16(i), timestamp: UInt32(i * 160), ssrc: 5, payload: [UInt8](repeating: 1, count: 160)).serialized(), to: target)
        }
        for _ in 0..<10 { waiting.tick(); try await Task.sleep(for: .milliseconds(20)) }
        #expect(waiting.counters.srtpRejected == 5 && heard.withLock { $0 } == 0 && waiting.remoteAddress == nil)
        await sender.close(); await waiting.close()
    }

    @Test func whatGoesOnTheWireIsEncrypted() async throws {
        let pool = try RTPPortPool(range: 44150...44199)
        let (alice, bob, _) = try await Self.pair(pool: pool)
        let seen = Mutex<[[UInt8]]>([])
        let spy = try await UDPSocket.bind(host: "127.0.0.1", port: 0) { bytes, _ in seen.withLock { $0.append(bytes) } }
        try alice.setRemote(host: "127.0.0.1", port: spy.localPort)
        let frame = [UInt8](repeating: 0x42, count: 160)
        for _ in 0..<5 { alice.send(frame: frame); alice.tick(); try await Task.sleep(for: .milliseconds(20)) }
        try await Task.sleep(for: .milliseconds(100))
        let packets = seen.withLock { $0 }
        #expect(packets.count == 5 && packets.allSatisfy { $0.count == 12 + 160 + 10 })
        #expect(packets.allSatisfy { !$0.dropFirst(12).starts(with: frame.prefix(16)) }, "no plain audio on the wire")
        await spy.close(); await alice.close(); await bob.close()
    }
}
