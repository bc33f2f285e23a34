import CoreMetrics
import Foundation
import NIOCore
import NIOPosix
import Pipeline
import Synchronization

/// One call's RTP and RTCP sockets (RFC 3550): sends 20 ms G.711 frames, receives through the
/// jitter buffer, and reports.
///
/// - Symmetric RTP: until the first valid packet arrives media goes to the SDP address; then to
///   wherever that packet came from (NAT-friendly latching), if it is of the SDP address's family.
///   From then on only that address is heard: RTP or RTCP from any other is dropped and counted
///   (`foreignPackets`), so a stranger who finds the port can neither be played nor press keys.
///   (SRTP is the answer on a hostile network: a packet without the key never verifies.)
/// - The timestamp advances 160 per 20 ms tick whether or not a frame was sent; the first frame
///   after a silent tick carries the marker bit (a new talkspurt).
/// - `tick(now:)` runs on the shared 20 ms media grid: it releases due packets, closes the
///   send slot, sends RTCP about every 5 s and notices media inactivity.
/// - SRTP (once `enableSRTP` has the keys): every packet out is protected, every packet in must
///   verify; one that does not (a wrong key, plain RTP) is dropped and counted before anything
///   else looks at it, so it can neither be played nor move the latched address.
public final class RTPSession: Sendable {
    public struct Counters: Sendable, Equatable {
        public var packetsSent = 0
        public var packetsReceived = 0
        public var invalidPackets = 0
        /// Packets dropped because they failed SRTP (or were plain on a call that requires SRTP).
        public var srtpRejected = 0
        /// Packets from an address other than the latched one (or of another family before latching).
        public var foreignPackets = 0
        public var jitter = JitterBuffer.Counters()
        public var rtcpReceived = 0
        public var rtcpSent = 0
    }

    public let localPort: Int
    private let rtp: UDPSocket
    private let rtcp: UDPSocket
    private let pool: RTPPortPool
    private let cname: String
    private let inactivityTimeout: Double
    private let srtpRejections: Counter?
    private let foreignPackets: Counter?
    private let state: Mutex<State>
    /// What the jitter buffer's playout, RTCP's interval and the inactivity timeout read: the
    /// continuous clock, or the call's virtual time.
    private let clock: CallClock
    private let epoch: ContinuousClock.Instant

    struct State {
        var remote: SocketAddress?
        var remoteRTCP: SocketAddress?
        var latched = false
        var ssrc = UInt32.random(in: 1...UInt32.max)
        var sequence = UInt16.random(in: 0...UInt16.max)
        var timestamp = UInt32.random(in: 0...UInt32.max)
        var sentThisTick = false
        var markNext = true
        var jitter = JitterBuffer()
        var dtmf = TelephoneEventReceiver()
        var counters = Counters()
        var octetsSent: UInt32 = 0
        var remoteSSRC: UInt32?
        var lastSRMiddle: UInt32 = 0
        var lastSRAt: Double = 0
        var lastReceivedAt: Double
        var nextRTCPAt: Double
        var timedOut = false
        var closed = false
        var law: G711.Law
        var payloadType: UInt8
        var telephoneEventPayloadType: UInt8?
        var onMedia: (@Sendable ([UInt8]) -> Void)?
        var onDTMF: (@Sendable (Character) -> Void)?
        var srtp: SRTPSession?
        var requiresSRTP = false

        /// An outgoing packet as it goes on the wire: protected on an SRTP call (empty if libsrtp refuses it).
        func seal(_ packet: [UInt8]) -> [UInt8] {
            guard let srtp else { return packet }
            return srtp.protect(packet) ?? []
        }
    }

    /// Opens RTP on an even port from `pool` and RTCP on the port above it.
    /// `group`: where the sockets live. Media servers put every call's sockets on one event loop
    /// and tick on it (see `PacerScheduler.run(on:)`), so sends need no thread hop.
    /// `requireSRTP`: drop every packet until SRTP keys are set (a call whose SDP demands SRTP).
    public static func open(host: String, pool: RTPPortPool, law: G711.Law = .muLaw, payloadType: Int = 0, telephoneEventPayloadType: Int? = 101,
                            inactivityTimeout: Double = 30, cname: String = "voicebridge", requireSRTP: Bool = false, srtpRejections: Counter? = nil, foreignPackets: Counter? = nil,
                            clock: CallClock = .continuous, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) async throws -> RTPSession {
        var lastError: (any Error)?
        // Another program may hold ports of our range (another server on this host): each pair free
        // now is tried once before giving up (a pair that failed goes to the back of the line).
        for _ in 0..<max(1, pool.freeCount) {
            let port = try pool.acquire()
            let inbox = Inbox()
            do {
                let rtp = try await UDPSocket.bind(host: host, port: port, group: group) { bytes, from in inbox.deliver(bytes, from, rtcp: false) }
                do {
                    let rtcp = try await UDPSocket.bind(host: host, port: port + 1, group: group) { bytes, from in inbox.deliver(bytes, from, rtcp: true) }
                    let session = RTPSession(port: port, rtp: rtp, rtcp: rtcp, pool: pool, inactivityTimeout: inactivityTimeout, cname: cname,
                                             srtpRejections: srtpRejections, foreignPackets: foreignPackets, clock: clock)
                    session.state.withLock { $0.requiresSRTP = requireSRTP }
                    session.negotiate(law: law, payloadType: payloadType, telephoneEventPayloadType: telephoneEventPayloadType)
                    inbox.session.withLock { $0 = session }
                    return session
                } catch {
                    await rtp.close()
                    throw error
                }
            } catch {
                pool.release(port)
                lastError = error
            }
        }
        throw lastError ?? RTPPortPool.Failure.exhausted(range: pool.range)
    }

    /// Lets the socket callbacks reach the session created after the sockets.
    private final class Inbox: Sendable {
        let session = Mutex<RTPSession?>(nil)
        func deliver(_ bytes: [UInt8], _ from: SocketAddress, rtcp: Bool) {
            guard let s = session.withLock({ $0 }) else { return }
            if rtcp { s.receiveRTCP(bytes, from: from) } else { s.receiveRTP(bytes, from: from) }
        }
    }

    private init(port: Int, rtp: UDPSocket, rtcp: UDPSocket, pool: RTPPortPool, inactivityTimeout: Double, cname: String, srtpRejections: Counter?, foreignPackets: Counter?,
                 clock: CallClock) {
        self.clock = clock
        self.epoch = clock.now
        self.localPort = port
        self.rtp = rtp
        self.rtcp = rtcp
        self.pool = pool
        self.inactivityTimeout = inactivityTimeout
        self.cname = cname
        self.srtpRejections = srtpRejections
        self.foreignPackets = foreignPackets
        self.state = Mutex(State(lastReceivedAt: 0, nextRTCPAt: 2500, law: .muLaw, payloadType: 0))
    }

    /// Sets the codec and payload types offer/answer settled on.
    public func negotiate(law: G711.Law, payloadType: Int, telephoneEventPayloadType: Int?) {
        state.withLock { s in
            s.law = law
            s.payloadType = UInt8(payloadType)
            s.telephoneEventPayloadType = telephoneEventPayloadType.map(UInt8.init)
        }
    }

    /// Turns SRTP on with the keys offer/answer exchanged. The same keys again (an answer repeated
    /// in a 200 after a 183) keep the running sessions: their packet indexes must not restart.
    public func enableSRTP(_ keys: SRTPKeys) throws(SRTPSession.Failure) {
        if state.withLock({ $0.srtp?.keys == keys }) { return }
        let session = try SRTPSession(keys: keys)
        state.withLock { $0.srtp = session }
    }

    public var isSRTP: Bool { state.withLock { $0.srtp != nil } }

    public var law: G711.Law { state.withLock { $0.law } }

    public var counters: Counters {
        state.withLock { s in var c = s.counters; c.jitter = s.jitter.counters; return c }
    }

    public var remoteAddress: SocketAddress? { state.withLock { $0.remote } }

    /// Packets waiting in the jitter buffer for their playout time.
    public var bufferedPackets: Int { state.withLock { $0.jitter.count } }

    /// Media and digits as they are released, in order.
    public func setHandlers(media: @escaping @Sendable ([UInt8]) -> Void, dtmf: @escaping @Sendable (Character) -> Void) {
        state.withLock { s in s.onMedia = media; s.onDTMF = dtmf }
    }

    /// Where to send before latching: the peer's SDP `c=` address and `m=` port.
    public func setRemote(host: String, port: Int) throws {
        let address = try SocketAddress(ipAddress: host, port: port)
        let control = try SocketAddress(ipAddress: host, port: port + 1)
        state.withLock { s in
            guard !s.latched else { return }
            s.remote = address
            s.remoteRTCP = control
        }
    }

    /// Milliseconds since the session opened.
    var now: Double {
        let (seconds, attoseconds) = (clock.now - epoch).components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }

    // MARK: Sending

    /// Sends one 20 ms frame (160 bytes of the negotiated law) in the current tick's slot.
    public func send(frame payload: [UInt8]) {
        let (bytes, remote): ([UInt8], SocketAddress?) = state.withLock { s in
            guard !s.closed else { return ([], nil) }
            let packet = RTPPacket(marker: s.markNext, payloadType: s.payloadType, sequenceNumber: s.sequence, timestamp: s.timestamp, ssrc: s.ssrc, payload: payload)
            s.sequence &+= 1
            s.markNext = false
            s.sentThisTick = true
            s.counters.packetsSent += 1
            s.octetsSent &+= UInt32(payload.count)
            // Protected under the lock, so packets reach libsrtp in sequence order.
            return (s.seal(packet.serialized()), s.remote)
        }
        if let remote, !bytes.isEmpty { rtp.send(bytes, to: remote) }
    }

    /// Whether the peer takes RFC 4733 events (it offered telephone-event).
    public var carriesTelephoneEvents: Bool { state.withLock { $0.telephoneEventPayloadType != nil } }

    /// Sends a digit as RFC 4733 events (100 ms). Voice pauses meanwhile; the timestamp keeps time.
    public func send(digit: Character) {
        let packets = TelephoneEventSender.packets(for: digit)
        let (datagrams, remote): ([[UInt8]], SocketAddress?) = state.withLock { s in
            guard let pt = s.telephoneEventPayloadType else { return ([], nil) }
            let start = s.timestamp
            let out = packets.map { p -> [UInt8] in
                defer { s.sequence &+= 1 }
                return s.seal(RTPPacket(marker: p.marker, payloadType: pt, sequenceNumber: s.sequence, timestamp: start, ssrc: s.ssrc, payload: p.payload).serialized())
            }
            s.counters.packetsSent += out.count
            s.markNext = true
            return (out, s.remote)
        }
        if let remote { for d in datagrams where !d.isEmpty { rtp.send(d, to: remote) } }
    }

    // MARK: The 20 ms tick

    public enum TickOutcome: Sendable, Equatable { case running, mediaTimeout, closed }

    /// Releases due audio, closes this tick's send slot, sends RTCP when due, checks inactivity.
    @discardableResult
    public func tick() -> TickOutcome {
        let t = now
        let (released, handler, report, rtcpTo, outcome) = state.withLock { s -> ([RTPPacket], (@Sendable ([UInt8]) -> Void)?, [UInt8]?, SocketAddress?, TickOutcome) in
            if s.closed { return ([], nil, nil, nil, .closed) }
            if !s.sentThisTick { s.markNext = true }   // silence: the next frame starts a talkspurt
            s.timestamp &+= 160
            s.sentThisTick = false
            let released = s.jitter.release(now: t)
            var report: [UInt8]?
            if t >= s.nextRTCPAt {
                report = makeReport(&s, now: t)
                s.counters.rtcpSent += 1
                s.nextRTCPAt = t + 5000 * Double.random(in: 0.5...1.5)
            }
            if s.lastReceivedAt == 0 { s.lastReceivedAt = t }
            if !s.timedOut, t - s.lastReceivedAt > inactivityTimeout * 1000 {
                s.timedOut = true
                return (released, s.onMedia, report, s.remoteRTCP, .mediaTimeout)
            }
            return (released, s.onMedia, report, s.remoteRTCP, .running)
        }
        if let handler { for p in released { handler(p.payload) } }
        if let report, !report.isEmpty, let rtcpTo { rtcp.send(report, to: rtcpTo) }
        return outcome
    }

    private func makeReport(_ s: inout State, now t: Double) -> [UInt8] {
        let sender = s.counters.packetsSent > 0
            ? RTCPPacket.SenderInfo(ntp: RTCPPacket.ntp(), rtpTimestamp: s.timestamp, packetCount: UInt32(truncatingIfNeeded: s.counters.packetsSent), octetCount: s.octetsSent)
            : nil
        var blocks: [RTCPPacket.ReportBlock] = []
        if let remote = s.remoteSSRC {
            let j = s.jitter
            blocks.append(.init(ssrc: remote, fractionLost: 0, cumulativeLost: Int32(j.counters.lost), extendedHighestSequence: UInt32(j.counters.received),
                                jitter: UInt32(j.jitterMilliseconds * 8), lastSR: s.lastSRMiddle,
                                delaySinceLastSR: s.lastSRMiddle == 0 ? 0 : Self.delaySinceLastSR(receivedAt: s.lastSRAt, now: t)))
        }
        let report = RTCPPacket.compound(ssrc: s.ssrc, sender: sender, reports: blocks, cname: cname)
        guard let srtp = s.srtp else { return report }
        return srtp.protectRTCP(report) ?? []
    }

    /// DLSR in 1/65536 s (RFC 3550 §6.4.1). `now` is read before the lock and the sender report's
    /// arrival inside it, so a report that lands between the two is "later" than now: that is no
    /// delay, not a negative one (converting it to UInt32 trapped and took the process down).
    static func delaySinceLastSR(receivedAt: Double, now: Double) -> UInt32 {
        UInt32(min(Double(UInt32.max), max(0, (now - receivedAt) / 1000 * 65536)))
    }

    // MARK: Receiving

    func receiveRTP(_ bytes: [UInt8], from: SocketAddress) {
        guard let bytes = opened(bytes, rtcp: false) else { return }
        guard let packet = try? RTPPacket(parsing: bytes) else {
            state.withLock { $0.counters.invalidPackets += 1 }
            return
        }
        let t = now
        // One lock per packet: what to do after it is returned, not read again.
        let (digit, foreign): ((Character, (@Sendable (Character) -> Void)?)?, Bool) = state.withLock { s in
            // Offer/answer: the peer may send any format we offered; we accept voice in the negotiated law.
            guard packet.payloadType == s.payloadType || packet.payloadType == s.telephoneEventPayloadType
                    || (packet.payloadType == 0 && s.law == .muLaw) || (packet.payloadType == 8 && s.law == .aLaw) else {
                s.counters.invalidPackets += 1
                return (nil, false)
            }
            guard s.hears(from) else {
                s.counters.foreignPackets += 1
                return (nil, true)
            }
            if !s.latched {   // symmetric RTP: answer to where the media really comes from
                s.latched = true
                s.remote = from
                if let port = from.port, let control = try? SocketAddress(ipAddress: from.ipAddress ?? "", port: port + 1) { s.remoteRTCP = control }
            }
            s.counters.packetsReceived += 1
            s.lastReceivedAt = t
            s.remoteSSRC = packet.ssrc
            if packet.payloadType == s.telephoneEventPayloadType {
                guard let event = TelephoneEvent(parsing: packet.payload), let d = s.dtmf.receive(event, timestamp: packet.timestamp) else { return (nil, false) }
                return ((d, s.onDTMF), false)
            }
            s.jitter.insert(packet, now: t)
            return (nil, false)
        }
        if let (d, handler) = digit { handler?(d) }
        if foreign { foreignPackets?.increment() }
    }

    func receiveRTCP(_ bytes: [UInt8], from: SocketAddress) {
        guard let bytes = opened(bytes, rtcp: true) else { return }
        guard let report = RTCPPacket.parse(bytes) else { return }
        let t = now
        let heard = state.withLock { s in
            guard s.hearsControl(from) else { s.counters.foreignPackets += 1; return false }
            s.counters.rtcpReceived += 1
            // A peer that suppresses silence (the simulated callee does) sends no RTP while it
            // listens, but its reports every ~5 s say it is there.
            if s.isPeersControl(from) { s.lastReceivedAt = t }
            if let sender = report.sender { s.lastSRMiddle = sender.middle32; s.lastSRAt = t }
            return true
        }
        if !heard { foreignPackets?.increment() }
    }

    /// The packet as it arrived on a plain call; decrypted on an SRTP call; nil (counted) when it
    /// fails SRTP, or arrives before the keys on a call that requires them.
    private func opened(_ bytes: [UInt8], rtcp: Bool) -> [UInt8]? {
        let (srtp, required) = state.withLock { ($0.srtp, $0.requiresSRTP) }
        let opened = srtp.flatMap { rtcp ? $0.unprotectRTCP(bytes) : $0.unprotect(bytes) } ?? (srtp == nil && !required ? bytes : nil)
        if opened == nil {
            state.withLock { $0.counters.srtpRejected += 1 }
            srtpRejections?.increment()
        }
        return opened
    }

    /// Closes both sockets and gives the port pair back to the pool. The handlers go too: they
    /// usually capture the leg that owns this session, and kept here they would keep both alive.
    public func close() async {
        let first = state.withLock { s -> Bool in
            defer { s.closed = true; s.onMedia = nil; s.onDTMF = nil }
            return !s.closed
        }
        guard first else { return }
        await rtp.close()
        await rtcp.close()
        pool.release(localPort)
    }
}
