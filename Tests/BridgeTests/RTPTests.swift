import Testing
@testable import Bridge

@Suite struct RTPPacketTests {
    @Test func roundTripsAndReadsEveryHeaderField() throws {
        let packet = RTPPacket(marker: true, payloadType: 0, sequenceNumber: 65535, timestamp: 0xDEADBEEF, ssrc: 0x01020304, csrcs: [7, 8], payload: Array(0..<160))
        let bytes = packet.serialized()
        #expect(bytes.count == 12 + 8 + 160)
        #expect(bytes[0] == 0x82 && bytes[1] == 0x80)
        #expect(try RTPPacket(parsing: bytes) == packet)
    }

    @Test func skipsExtensionsAndPadding() throws {
        var bytes: [UInt8] = [0xB0, 0x08, 0, 1, 0, 0, 0, 160, 0, 0, 0, 9]   // V=2, P=1, X=1, PT 8
        bytes += [0xBE, 0xDE, 0, 1, 1, 2, 3, 4]                              // one-word extension
        bytes += [0xAA, 0xBB]                                                  // payload
        bytes += [0, 0, 3]                                                     // 3 bytes of padding
        let p = try RTPPacket(parsing: bytes)
        #expect(p.payload == [0xAA, 0xBB] && p.payloadType == 8 && p.timestamp == 160)
    }

    @Test func malformedPacketsAreTypedErrors() {
        #expect(throws: RTPPacket.Failure.tooShort(3)) { try RTPPacket(parsing: [0x80, 0, 0]) }
        #expect(throws: RTPPacket.Failure.unsupportedVersion(1)) { try RTPPacket(parsing: [UInt8](repeating: 0x40, count: 12)) }
        #expect(throws: RTPPacket.Failure.truncatedHeader) { try RTPPacket(parsing: [0x8F] + [UInt8](repeating: 0, count: 20)) }
        #expect(throws: RTPPacket.Failure.invalidPadding) { try RTPPacket(parsing: [0xA0, 0] + [UInt8](repeating: 0, count: 10) + [200]) }
        #expect(throws: RTPPacket.Failure.isRTCP) { try RTPPacket(parsing: [0x80, 200] + [UInt8](repeating: 0, count: 26)) }
    }
}

@Suite struct TelephoneEventTests {
    @Test func payloadRoundTripsAndMapsDigits() {
        let e = TelephoneEvent(event: 11, end: true, volume: 10, duration: 800)
        #expect(TelephoneEvent(parsing: e.serialized()) == e)
        #expect(e.serialized() == [11, 0x8A, 0x03, 0x20])
        #expect("0123456789*#ABCD".map { TelephoneEvent.event(for: $0)! } == Array(0...15))
        #expect((0...15).map { TelephoneEvent(event: UInt8($0), end: false, duration: 0).digit! } == Array("0123456789*#ABCD"))
        #expect(TelephoneEvent(event: 16, end: false, duration: 0).digit == nil)
    }

    @Test func aPressIsReportedOnceDespiteUpdatesAndRepeatedEnds() {
        var receiver = TelephoneEventReceiver()
        var digits: [Character] = []
        for (ts, digit) in [(1000 as UInt32, "5" as Character), (5000, "#")] {
            for payload in TelephoneEventSender.packets(for: digit, durationMilliseconds: 200).map(\.payload) {
                if let d = receiver.receive(TelephoneEvent(parsing: payload)!, timestamp: ts) { digits.append(d) }
            }
        }
        #expect(digits == ["5", "#"])
    }

    @Test func senderFollowsRFC4733() {
        let packets = TelephoneEventSender.packets(for: "7", durationMilliseconds: 160)
        #expect(packets.first?.marker == true && packets.dropFirst().allSatisfy { !$0.marker })
        let events = packets.map { TelephoneEvent(parsing: $0.payload)! }
        #expect(events.suffix(3).allSatisfy { $0.end && $0.duration == 1280 }, "the end packet is sent three times")
        #expect(events.dropLast(3).allSatisfy { !$0.end })
        #expect(events.map(\.duration) == events.map(\.duration).sorted(), "duration grows")
        #expect(events.allSatisfy { $0.event == 7 })
    }
}

@Suite struct JitterBufferTests {
    static func packet(_ seq: UInt16, marker: Bool = false, ts: UInt32? = nil) -> RTPPacket {
        RTPPacket(marker: marker, payloadType: 0, sequenceNumber: seq, timestamp: ts ?? UInt32(seq) &* 160, ssrc: 1, payload: [UInt8(truncatingIfNeeded: seq)])
    }

    @Test func reordersAndReleasesOnSchedule() {
        var jb = JitterBuffer()
        let arrival: [(UInt16, Double)] = [(10, 0), (12, 41), (11, 42), (13, 60), (14, 80)]
        for (seq, t) in arrival { jb.insert(Self.packet(seq, marker: seq == 10), now: t) }
        #expect(jb.release(now: 39).isEmpty, "nothing before the 40 ms playout delay")
        let out = jb.release(now: 40 + 20 * 4)
        #expect(out.map(\.sequenceNumber) == [10, 11, 12, 13, 14])
        #expect(jb.counters.late == 0 && jb.counters.lost == 0)
    }

    @Test func dropsLateAndDuplicatePacketsAndCountsLoss() {
        var jb = JitterBuffer()
        jb.insert(Self.packet(100, marker: true), now: 0)
        jb.insert(Self.packet(100), now: 1)                 // duplicate
        jb.insert(Self.packet(102), now: 40)                // 101 is missing
        #expect(jb.release(now: 40).map(\.sequenceNumber) == [100])
        #expect(jb.release(now: 80).map(\.sequenceNumber) == [102], "101 was given up when 102 came due")
        jb.insert(Self.packet(101), now: 85)                // too late now
        #expect(jb.release(now: 200).isEmpty)
        #expect(jb.counters.duplicate == 1 && jb.counters.late == 1 && jb.counters.lost == 1)
    }

    /// A new SSRC whose numbers lie "behind" the old source's (sipp switching recordings, a PBX
    /// bridging another leg) is a new stream, not 60,000 late packets.
    @Test func aNewSourceStartsAfresh() {
        var jb = JitterBuffer()
        for n in 0..<50 { jb.insert(Self.packet(UInt16(n), marker: n == 0), now: Double(n * 20)) }
        #expect(jb.release(now: 2000).count == 50)
        for n in 0..<50 {
            let seq = UInt16(59_133 + n)
            jb.insert(RTPPacket(marker: n == 0, payloadType: 0, sequenceNumber: seq, timestamp: 0xDEAD_0000 &+ UInt32(n * 240), ssrc: 2, payload: [1]),
                      now: 3000 + Double(n * 30))
        }
        let second = jb.release(now: 3000 + 50 * 30 + 40)
        #expect(second.count == 50 && second.first?.sequenceNumber == 59_133, "\(second.count) released")
        #expect(jb.counters.late == 0 && jb.counters.sourceChanges == 1)
    }

    @Test func sequenceNumbersWrapAround() {
        var jb = JitterBuffer()
        let seqs: [UInt16] = [65533, 65534, 65535, 0, 1, 2]
        for (i, seq) in seqs.enumerated() { jb.insert(Self.packet(seq, marker: i == 0, ts: UInt32(i * 160)), now: Double(i * 20)) }
        #expect(jb.release(now: 1000).map(\.sequenceNumber) == seqs)
        #expect(jb.counters.late == 0 && jb.counters.lost == 0)
    }

    @Test func delayAdaptsToJitterWithinFortyToOneTwentyMilliseconds() {
        var steady = JitterBuffer()
        for n in 0..<100 { steady.insert(Self.packet(UInt16(n), marker: n % 25 == 0), now: Double(n * 20)) }
        #expect(steady.delayMilliseconds == 40)
        var jittery = JitterBuffer()
        var seed: UInt64 = 3
        for n in 0..<200 {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            let jitter = Double((seed >> 33) % 60)
            jittery.insert(Self.packet(UInt16(n), marker: n % 25 == 0), now: Double(n * 20) + jitter)
        }
        #expect(jittery.delayMilliseconds > 40 && jittery.delayMilliseconds <= 120, "delay \(jittery.delayMilliseconds)")
        var wild = JitterBuffer()
        for n in 0..<200 { wild.insert(Self.packet(UInt16(n), marker: n % 25 == 0), now: Double(n * 20) + (n % 2 == 0 ? 0 : 300)) }
        #expect(wild.delayMilliseconds == 120)
    }

    @Test func staysBoundedWhenNobodyReleases() {
        var jb = JitterBuffer()
        for n in 0..<500 { jb.insert(Self.packet(UInt16(n)), now: Double(n * 20)) }
        #expect(jb.count <= JitterBuffer.capacity)
        #expect(jb.counters.overflow == 500 - JitterBuffer.capacity)
    }
}

@Suite struct RTCPTests {
    @Test func senderReportWithCNAMERoundTrips() throws {
        let sender = RTCPPacket.SenderInfo(ntp: RTCPPacket.ntp(), rtpTimestamp: 16000, packetCount: 100, octetCount: 16000)
        let block = RTCPPacket.ReportBlock(ssrc: 42, fractionLost: 12, cumulativeLost: -3, extendedHighestSequence: 70000, jitter: 5, lastSR: 0x1234, delaySinceLastSR: 65536)
        let bytes = RTCPPacket.compound(ssrc: 7, sender: sender, reports: [block], cname: "voicebridge@127.0.0.1")
        #expect(bytes.count % 4 == 0)
        #expect(bytes[1] == 200 && (Int(bytes[2]) << 8 | Int(bytes[3])) == 6 + 6, "SR length in words minus one")
        let parsed = try #require(RTCPPacket.parse(bytes))
        #expect(parsed.ssrc == 7 && parsed.sender == sender && parsed.reports == [block] && parsed.cname == "voicebridge@127.0.0.1")
    }

    @Test func receiverReportAndGarbage() throws {
        let rr = RTCPPacket.compound(ssrc: 9, sender: nil, reports: [], cname: "x")
        #expect(rr[1] == 201 && rr[2] == 0 && rr[3] == 1)
        #expect(try #require(RTCPPacket.parse(rr)).sender == nil)
        #expect(RTCPPacket.parse([0x80, 200, 0, 50, 1, 2]) == nil, "a length past the end is refused")
        #expect(RTCPPacket.parse([0x40, 1, 2, 3]) == nil)
    }
}

@Suite struct RTCPDelayTests {
    /// A sender report that arrives between a tick's clock reading and its report is no delay —
    /// the negative difference trapped converting to UInt32 and crashed the test process once.
    @Test func theDelaySinceTheLastSenderReportNeverGoesNegativeOrOverflows() {
        #expect(RTPSession.delaySinceLastSR(receivedAt: 10_000, now: 11_000) == 65536, "one second")
        #expect(RTPSession.delaySinceLastSR(receivedAt: 10_000.5, now: 10_000) == 0)
        #expect(RTPSession.delaySinceLastSR(receivedAt: 0, now: 1e12) == UInt32.max)
    }
}
