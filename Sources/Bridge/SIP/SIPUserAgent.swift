import CoreMetrics
import Logging
import NIOCore
import NIOPosix
import Synchronization

/// VoiceBridge's SIP user agent over UDP, TCP or TLS: places calls (UAC) and answers them (UAS).
///
/// An actor: every transaction and dialog lives in its state. `run()` must be running — it reads
/// datagrams and drives the RFC 3261 timers — and is owned by the server's (or a test's) task;
/// when it returns, every call has been ended and every socket and port released.
public actor SIPUserAgent {
    public struct Configuration: Sendable {
        public var bindHost = "127.0.0.1"
        /// Written into Via, Contact and SDP; the bind address when nil.
        public var advertisedHost: String?
        public var port = 5060
        /// UDP, or a stream (TCP, TLS) framed by Content-Length.
        public var transport = SIPTransportKind.udp
        /// Our certificate and key for TLS (required with `.tls`).
        public var tls: SIPStreamTransport.TLSFiles?
        public var rtpPorts: ClosedRange<Int> = 20000...20999
        public var username: String?
        public var password: String?
        /// The one host `username`/`password` answer digest challenges from (the gateway's); a
        /// challenge from any other host (a transfer target) fails the call without them. Nil: any
        /// host (a user agent with a single peer).
        public var credentialsHost: String?
        public var maxInboundCalls = 20
        public var ringTimeout: Duration = .seconds(30)
        public var mediaTimeoutSeconds: Double = 30
        public var product = "VoiceBridge"
        /// Timer H: how long an answered call waits for the caller's ACK before giving up (64·T1).
        public var ackTimeout: Duration = .seconds(32)
        /// Where RTP sockets live: give the event loop the media tick runs on (no hop per packet).
        public var mediaGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
        /// Requests per source address (see SIPRateLimiter).
        public var rateLimit = SIPRateLimiter.Limit()
        /// SRTP for call media (SDES keys in the SDP; see SRTPMode).
        public var srtp = SRTPMode.off
        /// Where the hostile-input counters go (`/metrics` in the server).
        public var metrics: any MetricsFactory = NOOPMetricsHandler.instance

        public init() {}
        public var host: String { advertisedHost ?? bindHost }
    }

    /// What to do with an inbound INVITE before it is answered.
    public enum Admission: Sendable, Equatable {
        /// Answer (after ringing this long).
        case accept(ringing: Duration = .zero)
        /// 503: no engine can take the call.
        case unavailable
        /// A final refusal: 486 busy, 603 decline, …
        case reject(Int)
        /// Ring until the caller gives up (CANCEL).
        case ringForever

        public static let accept = Admission.accept(ringing: .zero)
    }

    public let configuration: Configuration
    public nonisolated let portPool: RTPPortPool
    public nonisolated let incomingCalls: AsyncStream<SIPCall>
    let incoming: AsyncStream<SIPCall>.Continuation
    let logger: Logger
    private let datagrams: AsyncStream<([UInt8], SocketAddress)>
    private let datagramInput: AsyncStream<([UInt8], SocketAddress)>.Continuation
    /// Peers a TCP or TLS connection could not reach, with why.
    private let unreachablePeers: AsyncStream<(SocketAddress, String)>
    private let unreachableInput: AsyncStream<(SocketAddress, String)>.Continuation
    /// UDP peers that left a request or a 2xx unanswered for T1: probed for ICMP port unreachable.
    private let probeRequests: AsyncStream<SocketAddress>
    let probeInput: AsyncStream<SocketAddress>.Continuation
    var socket: (any SIPTransport)?
    // What holds a deadline re-arms the timer alarm when it changes (`timersChanged`).
    var transactions: [String: ClientTransaction] = [:] { didSet { timersChanged() } }   // branch + method
    var serverResponses: [String: (response: [UInt8], to: SocketAddress, until: ContinuousClock.Instant)] = [:] { didSet { timersChanged() } }
    var outbound: [String: OutboundDialog] = [:] { didSet { timersChanged() } }           // by Call-ID
    var inbound: [String: InboundDialog] = [:] { didSet { timersChanged() } }
    var answering: Set<String> = []   // Call-IDs whose INVITE is being answered
    var ringingCalls: [String: PendingAnswer] = [:] { didSet { timersChanged() } }
    /// What the transaction and dialog timers (A–K, ringing, Timer G and H) read and wait on: the
    /// continuous clock, or a test's virtual time.
    public nonisolated let clock: CallClock
    /// Wakes the timer loop at the earliest deadline.
    let timerAlarm: WakeAlarm
    /// While `fireTimers` runs, its own changes do not re-arm the alarm one by one: it re-arms once, at its end.
    var firingTimers = false
    var cancelled: Set<String> = []   // …and that a CANCEL reached meanwhile
    var admission: @Sendable (SIPMessage) -> Admission = { _ in .accept(ringing: .zero) }
    public private(set) var malformedDatagrams = 0
    /// Datagrams that are not SIP, or SIP we refused (answered 400 where it could be answered), and
    /// TCP/TLS streams that could not be cut into messages (their connection closed).
    let malformedCounter: Counter
    /// Requests dropped by the per-source rate limit.
    let rateLimitedCounter: Counter
    /// TCP/TLS connections closed at accept: the table, or one address's share of it, was full.
    let refusedConnectionsCounter: Counter
    let rateLimiter: SIPRateLimiter
    /// RTP and RTCP packets dropped because they failed SRTP.
    let srtpRejectedCounter: Counter
    /// RTP and RTCP dropped for coming from somewhere other than the call's peer.
    let foreignRTPCounter: Counter

    public init(configuration: Configuration, logger: Logger = Logger(label: "sip"), clock: CallClock = .continuous) throws {
        self.configuration = configuration
        self.logger = logger
        self.clock = clock
        timerAlarm = WakeAlarm(clock: clock)
        self.portPool = try RTPPortPool(range: configuration.rtpPorts)
        (incomingCalls, incoming) = AsyncStream.makeStream(of: SIPCall.self, bufferingPolicy: .bufferingNewest(64))
        (datagrams, datagramInput) = AsyncStream.makeStream(of: ([UInt8], SocketAddress).self, bufferingPolicy: .bufferingNewest(1024))
        (unreachablePeers, unreachableInput) = AsyncStream.makeStream(of: (SocketAddress, String).self, bufferingPolicy: .bufferingNewest(64))
        (probeRequests, probeInput) = AsyncStream.makeStream(of: SocketAddress.self, bufferingPolicy: .bufferingNewest(64))
        malformedCounter = Counter(label: "voicebridge_sip_malformed_total", dimensions: [], factory: configuration.metrics)
        rateLimitedCounter = Counter(label: "voicebridge_sip_rate_limited_total", dimensions: [], factory: configuration.metrics)
        refusedConnectionsCounter = Counter(label: "voicebridge_sip_connections_refused_total", dimensions: [], factory: configuration.metrics)
        rateLimiter = SIPRateLimiter(limit: configuration.rateLimit)
        srtpRejectedCounter = Counter(label: "voicebridge_srtp_rejected_total", dimensions: [], factory: configuration.metrics)
        foreignRTPCounter = Counter(label: "voicebridge_rtp_foreign_packets_total", dimensions: [], factory: configuration.metrics)
    }

    public enum StartFailure: Error, Equatable, CustomStringConvertible {
        case tlsWithoutCertificate
        public var description: String { "SIP over TLS needs a certificate and a private key" }
    }

    /// Binds the SIP socket (or listens, on TCP and TLS). Returns the bound port (useful with port 0).
    @discardableResult
    public func start() async throws -> Int {
        let configuration = configuration, logger = logger
        let unreachableInput = unreachableInput
        let unreachable: SIPStreamTransport.Unreachable = { address, reason in unreachableInput.yield((address, reason)) }
        let refusedConnections = refusedConnectionsCounter
        let refused: SIPStreamTransport.Refused = { _ in refusedConnections.increment() }
        let malformed = malformedCounter
        let unframeable: SIPStreamTransport.Unframeable = { _ in malformed.increment() }
        return try await start { receive in
            switch configuration.transport {
            case .udp:
                return try await UDPSocket.bind(host: configuration.bindHost, port: configuration.port, handler: receive)
            case .tcp:
                return try await SIPStreamTransport.listen(host: configuration.bindHost, port: configuration.port, tls: nil, logger: logger,
                                                           unreachable: unreachable, refused: refused, unframeable: unframeable,
                                                           handler: receive)
            case .tls:
                guard let tls = configuration.tls else { throw StartFailure.tlsWithoutCertificate }
                return try await SIPStreamTransport.listen(host: configuration.bindHost, port: configuration.port, tls: tls, logger: logger,
                                                           unreachable: unreachable, refused: refused, unframeable: unframeable,
                                                           handler: receive)
            }
        }
    }

    /// Starts on the transport `open` makes around the handler of what arrives (rate-limited, then
    /// queued for `run`): the configured socket, or a test's wire in memory, whose sends it sees
    /// at the virtual instant they are made.
    func start(transport open: @Sendable (@escaping UDPSocket.Handler) async throws -> any SIPTransport) async throws -> Int {
        let input = datagramInput
        let limiter = rateLimiter, limited = rateLimitedCounter
        // The limit is checked here, on the socket's event loop, before the message is queued.
        let receive: UDPSocket.Handler = { bytes, from in
            guard limiter.admits(bytes, from: from) else { return limited.increment() }
            input.yield((bytes, from))
        }
        let socket = try await open(receive)
        self.socket = socket
        return socket.localPort
    }

    public var localPort: Int { socket?.localPort ?? configuration.port }
    public var liveCallCount: Int { outbound.count + inbound.count + ringingCalls.count }

    public func setAdmission(_ decide: @escaping @Sendable (SIPMessage) -> Admission) { admission = decide }

    /// Reads datagrams and fires timers until cancelled; then ends every call and closes the socket.
    public func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask { [datagrams] in
                // Iterating an AsyncStream ends when the task is cancelled.
                for await (bytes, from) in datagrams { await self.receive(bytes, from: from) }
            }
            group.addTask { [unreachablePeers] in
                for await (address, reason) in unreachablePeers { await self.peerUnreachable(address, reason: reason) }
            }
            group.addTask { [probeRequests, unreachableInput] in
                await withTaskGroup(of: Void.self) { probes in
                    var running = 0
                    for await address in probeRequests {
                        if running == Self.probesAtOnce { await probes.next(); running -= 1 }
                        running += 1
                        probes.addTask {
                            if await UDPPortProbe.isRefused(address) { unreachableInput.yield((address, "ICMP port unreachable")) }
                        }
                    }
                }
            }
            group.addTask {
                while !Task.isCancelled {
                    await self.timerAlarm.wait()
                    guard !Task.isCancelled else { break }
                    await self.fireTimers(now: self.clock.now)
                }
            }
        }
        await terminateAll(reason: .shutdown)
        await socket?.close()
        socket = nil
    }

    /// Ends every call politely (BYE / CANCEL), then lets run() finish its work.
    public func terminateAll(reason: SIPCallEnd) async {
        for id in Array(ringingCalls.keys) { await endRinging(id) }
        for id in Array(outbound.keys) { await endOutbound(id, reason: reason) }
        for id in Array(inbound.keys) { await endInbound(id, reason: reason, sendBye: true) }
    }

    // MARK: Receiving

    func receive(_ bytes: [UInt8], from: SocketAddress) async {
        if bytes.allSatisfy({ $0 == 13 || $0 == 10 }) { return }   // keep-alive
        let message: SIPMessage
        do throws(SIPParser.Failure) {
            message = try SIPParser.parse(bytes)
        } catch {
            malformedDatagrams += 1
            malformedCounter.increment()
            logger.debug("malformed SIP datagram", metadata: ["from": "\(from)", "error": "\(error)"])
            if let request = SIPParser.answerableBadRequest(bytes) {
                send(response(400, to: request, toTag: nil, extra: [("Warning", "399 VoiceBridge \"\(SIPParser.warning(for: error))\"")]), to: from)
            }
            return
        }
        if message.isRequest { await handleRequest(message, from: from) } else { await handleResponse(message, from: from) }
    }

    // MARK: Sending

    func send(_ message: SIPMessage, to address: SocketAddress) {
        socket?.send(message.serialized(), to: address)
    }

    /// Starts a client transaction for `request` and sends it.
    func startTransaction(_ request: SIPMessage, to destination: SIPDestination) {
        guard let branch = request.topVia?.branch, let method = request.method, let callID = request.callID else { return }
        let bytes = request.serialized()
        transactions[branch + method] = ClientTransaction(kind: method == "INVITE" ? .invite : .nonInvite, callID: callID, method: method,
                                                          request: bytes, destination: destination, reliable: configuration.transport.isReliable, now: clock.now)
        socket?.send(bytes, to: destination.address)
    }

    /// A response to `request`, echoing Via, From, To (tagged), Call-ID and CSeq (RFC 3261 §8.2.6).
    func response(_ code: Int, to request: SIPMessage, toTag: String?, extra: [(String, String)] = [], body: [UInt8] = []) -> SIPMessage {
        var headers = SIPHeaders()
        for via in request.headers.values("Via") { headers.add("Via", via) }
        headers.add("From", request.headers["From"] ?? "")
        var to = request.to
        if to?.tag == nil, let toTag { to?.tag = toTag }
        headers.add("To", to?.description ?? request.headers["To"] ?? "")
        headers.add("Call-ID", request.callID ?? "")
        headers.add("CSeq", request.headers["CSeq"] ?? "")
        headers.add("Server", configuration.product)
        for (name, value) in extra { headers.add(name, value) }
        if !body.isEmpty { headers.add("Content-Type", "application/sdp") }
        return .response(code, headers: headers, body: body)
    }

    /// Sends a final response and remembers it, so a retransmitted request gets it again.
    func respond(_ response: SIPMessage, to request: SIPMessage, at address: SocketAddress) {
        send(response, to: address)
        if let branch = request.topVia?.branch, let method = request.method, (response.statusCode ?? 0) >= 200 {
            serverResponses[branch + method] = (response.serialized(), address, clock.now.advanced(by: ClientTransaction.timeout))
        }
    }

    /// Where an in-dialog request goes (RFC 3261 §12.2.1.1): to the first route of the dialog's route
    /// set (a proxy such as Kamailio that record-routed the call), else to the remote target
    /// (Contact), else to `fallback`.
    func nextHop(routeSet: [String], remoteTarget: String?, fallback: SocketAddress) -> SocketAddress {
        if let first = routeSet.first {
            let uri = NameAddress(first)?.uri ?? SIPURI(first)
            if let uri, let address = try? destination(uri).address { return address }
        }
        if let target = remoteTarget.flatMap(SIPURI.init), let address = try? SocketAddress(ipAddress: target.host, port: target.port ?? configuration.transport.defaultPort) {
            return address
        }
        return fallback
    }

    /// Where `uri` goes on our transport (a URI without a port means 5061 on TLS).
    func destination(_ uri: SIPURI) throws -> SIPDestination {
        try SIPDestination(uri: uri, defaultPort: configuration.transport.defaultPort)
    }

    var contact: String {
        let transport = configuration.transport == .udp ? "" : ";transport=\(configuration.transport.rawValue)"
        return "<sip:voicebridge@\(configuration.host):\(localPort)\(transport)>"
    }

    func newVia() -> String {
        Via(transport: configuration.transport.viaName, host: configuration.host, port: localPort, branch: Via.newBranch()).description
    }

    // MARK: Media

    /// A call's RTP session; on a required-SRTP call it drops everything until the keys are known.
    func openRTP() async throws -> RTPSession {
        try await RTPSession.open(host: configuration.bindHost, pool: portPool, inactivityTimeout: configuration.mediaTimeoutSeconds,
                                  requireSRTP: configuration.srtp == .required, srtpRejections: srtpRejectedCounter, foreignPackets: foreignRTPCounter,
                                  clock: clock, group: configuration.mediaGroup)
    }

    /// Puts what offer/answer settled into the RTP session: codec, payload types, address, SRTP keys.
    func apply(_ audio: NegotiatedAudio, to rtp: RTPSession) throws(SRTPSession.Failure) {
        if let keys = audio.srtp { try rtp.enableSRTP(keys) }
        rtp.negotiate(law: audio.law, payloadType: audio.payloadType, telephoneEventPayloadType: audio.telephoneEventPayloadType)
        try? rtp.setRemote(host: audio.remoteAddress, port: audio.remotePort)
    }
}
