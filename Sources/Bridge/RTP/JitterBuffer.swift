/// Reorders RTP packets and releases them on a playout schedule.
///
/// Each packet's playout time is its media time (timestamp) on the sender's clock, mapped to ours
/// at the first packet, plus a delay that adapts to measured interarrival jitter (RFC 3550 A.8)
/// between 40 and 120 ms. The delay only changes at a talkspurt start (marker bit), where a jump
/// is inaudible. Packets that arrive after their turn, and duplicates, are dropped and counted.
/// A new SSRC is a new source (RFC 3550 §8.2: a phone switching its media, a PBX bridging another
/// leg): its numbers and clock start afresh, so the buffer does too — otherwise a source whose
/// sequence numbers lie behind the last one's would be dropped as late, packet after packet.
public struct JitterBuffer: Sendable {
    public struct Counters: Sendable, Equatable {
        public var received = 0
        public var released = 0
        public var late = 0
        public var duplicate = 0
        public var lost = 0
        public var overflow = 0
        /// Times a packet came from a new SSRC and the buffer started over.
        public var sourceChanges = 0
    }

    public static let minimumDelayMilliseconds = 40.0
    public static let maximumDelayMilliseconds = 120.0
    /// Bounded: 2 s of 20 ms packets. A stalled consumer drops the oldest.
    public static let capacity = 100

    public private(set) var counters = Counters()
    public private(set) var delayMilliseconds = JitterBuffer.minimumDelayMilliseconds
    /// Interarrival jitter estimate, in milliseconds.
    public private(set) var jitterMilliseconds = 0.0

    private let clockRate: Double
    private var packets: [UInt64: RTPPacket] = [:]   // by extended sequence number
    private var nextSequence: UInt64?
    private var extendedMax: Int64?
    private var base: (timestamp: UInt32, arrival: Double)?
    private var lastTransit: Double?
    private var ssrc: UInt32?

    public init(clockRate: Int = 8000) {
        self.clockRate = Double(clockRate)
    }

    public var count: Int { packets.count }

    /// Adds a packet that arrived at `now` (milliseconds on the receiver's clock).
    public mutating func insert(_ packet: RTPPacket, now: Double) {
        counters.received += 1
        if let ssrc, ssrc != packet.ssrc {
            // What the old source still has queued is dropped: its playout clock is not the new one's.
            counters.sourceChanges += 1
            packets = [:]
            nextSequence = nil
            extendedMax = nil
            base = nil
            lastTransit = nil
        }
        ssrc = packet.ssrc
        let seq = extend(packet.sequenceNumber)
        if let next = nextSequence, seq < next { counters.late += 1; return }
        guard packets[seq] == nil else { counters.duplicate += 1; return }

        if base == nil { base = (packet.timestamp, now) }
        updateJitter(packet, now: now)
        if packet.marker || nextSequence == nil {
            // Talkspurt start: adopt the delay the current jitter calls for.
            delayMilliseconds = min(Self.maximumDelayMilliseconds, max(Self.minimumDelayMilliseconds, 20 + 3 * jitterMilliseconds))
            if packet.marker, packets.isEmpty { base = (packet.timestamp, now) }
        }
        if nextSequence == nil { nextSequence = seq }
        if packets.count >= Self.capacity, let oldest = packets.keys.min() {
            packets[oldest] = nil
            counters.overflow += 1
            nextSequence = max(nextSequence ?? 0, oldest + 1)
        }
        packets[seq] = packet
    }

    /// Packets whose playout time has come, in sequence order. Missing packets before a due one
    /// are given up as lost.
    public mutating func release(now: Double) -> [RTPPacket] {
        var out: [RTPPacket] = []
        while let next = nextSequence, let due = earliestDue(), playoutTime(of: due.packet) <= now {
            if due.sequence > next { counters.lost += Int(due.sequence - next) }
            out.append(due.packet)
            packets[due.sequence] = nil
            nextSequence = due.sequence + 1
        }
        counters.released += out.count
        return out
    }

    /// Playout time of a packet on the receiver's clock.
    func playoutTime(of packet: RTPPacket) -> Double {
        guard let base else { return 0 }
        let mediaMilliseconds = Double(Int32(bitPattern: packet.timestamp &- base.timestamp)) * 1000 / clockRate
        return base.arrival + mediaMilliseconds + delayMilliseconds
    }

    private func earliestDue() -> (sequence: UInt64, packet: RTPPacket)? {
        guard let seq = packets.keys.min(), let packet = packets[seq] else { return nil }
        return (seq, packet)
    }

    /// Extends a 16-bit sequence number past its wrap (RFC 3550 A.1): the signed distance from the
    /// highest number seen decides whether a packet is ahead or behind. Starts at 2^16 so a late
    /// packet from before the first one stays positive.
    private mutating func extend(_ seq: UInt16) -> UInt64 {
        guard let highest = extendedMax else {
            extendedMax = 65_536 + Int64(seq)
            return UInt64(65_536 + Int64(seq))
        }
        let delta = Int64(Int16(bitPattern: seq &- UInt16(truncatingIfNeeded: highest)))
        let extended = highest + delta
        if delta > 0 { extendedMax = extended }
        return UInt64(max(0, extended))
    }

    private mutating func updateJitter(_ packet: RTPPacket, now: Double) {
        let transit = now - Double(packet.timestamp) * 1000 / clockRate
        if let last = lastTransit {
            let d = abs(transit - last)
            jitterMilliseconds += (d - jitterMilliseconds) / 16
        }
        lastTransit = transit
    }
}
