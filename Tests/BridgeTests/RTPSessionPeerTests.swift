import NIOCore
import Synchronization
import Testing
import TestLanes
import TestSupport
@testable import Bridge

/// Once a call's RTP has latched onto its peer, nobody else is heard.
@Suite(.serialized, .tags(.timed)) struct RTPSessionPeerTests {
    @Test func afterLatchingPacketsFromAnyOtherAddressAreDroppedAndCounted() async throws {
        let pool = try RTPPortPool(range: 44100...44149)
        let alice = try await RTPSession.open(host: "127.0.0.1", pool: pool)
        let bob = try await RTPSession.open(host: "127.0.0.1", pool: pool)
        try alice.setRemote(host: "127.0.0.1", port: bob.localPort)
        try bob.setRemote(host: "127.0.0.1", port: alice.localPort)
        let heard = Locked<[[UInt8]]>([])
        let keys = Locked<[Character]>([])
        bob.setHandlers(media: { frame in heard.withLock { $0.append(frame) } }, dtmf: { key in keys.withLock { $0.append(key) } })
        let intruder = try await UDPSocket.bind(host: "127.0.0.1", port: 0) { _, _ in }
        let target = try SocketAddress(ipAddress: "127.0.0.1", port: bob.localPort)
        let loud = [UInt8](repeating: 0x55, count: 160)
        let frames = (0..<10).map { i in [UInt8](repeating: UInt8(i + 1), count: 160) }
        for (i, frame) in frames.enumerated() {
            alice.send(frame: frame)
            alice.tick()
            if i >= 2 {   // alice's first packets have latched bob onto her address
                let forged = RTPPacket(marker: false, payloadType: 0, sequenceNumber: UInt16(1000 + i), timestamp: UInt32(i * 160), ssrc: 99, payload: loud)
                intruder.send(forged.serialized(), to: target)
                intruder.send(RTPPacket(marker: true, payloadType: 101, sequenceNumber: UInt16(2000 + i), timestamp: 0, ssrc: 99,
                                        payload: [5, 0x80, 0, 160]).serialized(), to: target)   // DTMF 5, end
            }
            bob.tick()
            try await Task.sleep(for: .milliseconds(20))
        }
        for _ in 0..<12 { bob.tick(); try await Task.sleep(for: .milliseconds(20)) }
        #expect(bob.counters.foreignPackets == 16, "8 voice and 8 key packets from the stranger")
        #expect(!heard.withLock { $0 }.contains(loud) && keys.withLock { $0 }.isEmpty, "none played, no key pressed")
        #expect(heard.withLock { $0 } == frames, "the peer's audio all arrived")
        await intruder.close(); await alice.close(); await bob.close()
    }
}
