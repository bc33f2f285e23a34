import AsyncHTTPClient
import Foundation
import Hummingbird
import HummingbirdWSClient
import Logging
import Synchronization
import TestSupport
@testable import API
@testable import Bridge
@testable import Calls

/// Twilio's Calls API as VoiceBridge meets it, on 127.0.0.1: it checks each create-call request
/// (Basic auth, the form fields), answers with a Call resource or Twilio's error body, then plays
/// the call out by the callee number — status callbacks signed with the auth token, and for an
/// answered call the media stream to the TwiML's `<Stream>` URL from a Twilio-protocol client.
///
/// Numbers: `…01` answers (AMD `human`) and streams `audio` until VoiceBridge closes the stream;
/// `…02` is busy (a late `ringing` follows the final callback, out of order); `…03` rings until
/// canceled; `…04` does not answer; `…05` fails; `…06` is refused once with 429, then answers;
/// `…07` answers like `…01` and presses 1 (a `dtmf` event) 3 s into its stream, once a second
/// of audio has reached it — a person taking a warm transfer; `+1555` is not a valid number (21211).
final class FakeTwilio: Sendable {
    static let accountSID = "AC00000000000000000000000000000001"
    static let authToken = "12345678901234567890123456789012"

    struct Created: Sendable {
        var sid: String
        var form: [String: [String]]
        func value(_ name: String) -> String? { form[name]?.first }
    }

    let audio: [UInt8]
    let creates = Locked<[Created]>([])
    let updates = Locked<[(sid: String, status: String)]>([])
    /// The status callbacks VoiceBridge has answered, in order: what it has taken in by now.
    let answeredStatuses = Locked<[(sid: String, status: String)]>([])
    /// Calls whose TwiML was replaced (`Twiml=` on an update), with the new TwiML.
    let redirects = Mutex<[(sid: String, twiml: String)]>([])
    /// Media messages VoiceBridge sent on each stream, by call SID.
    let mediaReceived = Locked<[String: Int]>([:])
    let refused429 = Mutex(false)
    private let jobs: AsyncStream<Created>
    private let jobInput: AsyncStream<Created>.Continuation
    private let canceled = Locked<Set<String>>([])
    private let port = Mutex(0)
    private let logger = Logger(label: "fake-twilio")

    init(audio: [UInt8]) {
        self.audio = audio
        (jobs, jobInput) = AsyncStream.makeStream(of: Created.self)
    }

    var baseURL: String { "http://127.0.0.1:\(port.withLock { $0 })" }

    /// Serves until cancelled; `ready` gets the port. Each created call plays out in its own child task.
    func run(ready: @escaping @Sendable (Int) -> Void) async throws {
        let router = Router()
        router.post("/2010-04-01/Accounts/:account/Calls.json") { request, context in try await self.create(request, context) }
        router.post("/2010-04-01/Accounts/:account/Calls/:sid") { request, context in try await self.update(request, context) }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { channel in
                                  self.port.withLock { $0 = channel.localAddress?.port ?? 0 }
                                  ready(channel.localAddress?.port ?? 0)
                              }, logger: logger)
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { try await app.runService() }
            for await call in jobs { group.addTask { await self.play(call) } }
        }
    }

    private func error(_ status: HTTPResponse.Status, _ code: Int, _ message: String) -> Response {
        let body = #"{"code":\#(code),"message":"\#(message)","more_info":"https://www.twilio.com/docs/errors/\#(code)","status":\#(status.code)}"#
        return Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    private func form(_ request: Request) async throws -> [String: [String]] {
        let text = String(buffer: try await request.body.collect(upTo: 1 << 16))
        var form: [String: [String]] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0) }
            form[parts[0], default: []].append(parts.count > 1 ? parts[1] : "")
        }
        return form
    }

    private func authorized(_ request: Request) -> Bool {
        let expected = "Basic " + Data("\(Self.accountSID):\(Self.authToken)".utf8).base64EncodedString()
        return request.headers[.authorization] == expected
    }

    private func create(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        guard authorized(request) else { return error(.unauthorized, 20003, "Authenticate") }
        guard context.parameters.get("account") == Self.accountSID else { return error(.notFound, 20404, "The requested resource was not found") }
        let form = try await form(request)
        for field in ["To", "From", "Twiml", "StatusCallback"] where form[field]?.first?.isEmpty != false {
            return error(.badRequest, 21201, "Missing required parameter \(field)")
        }
        let to = form["To"]![0]
        guard to.count >= 8 else { return error(.badRequest, 21211, "The 'To' number \(to) is not a valid phone number.") }
        if to.hasSuffix("06"), !refused429.withLock({ (refused: inout Bool) -> Bool in defer { refused = true }; return refused }) {
            return error(.tooManyRequests, 20429, "Too Many Requests")
        }
        let sid = "CA" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let call = Created(sid: sid, form: form)
        creates.withLock { $0.append(call) }
        jobInput.yield(call)
        let body = #"{"sid":"\#(sid)","account_sid":"\#(Self.accountSID)","to":"\#(to)","from":"\#(form["From"]![0])","status":"queued","direction":"outbound-api"}"#
        return Response(status: .created, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    private func update(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        guard authorized(request) else { return error(.unauthorized, 20003, "Authenticate") }
        let sid = String((context.parameters.get("sid") ?? "").dropLast(5))   // "CA….json"
        let fields = try await form(request)
        if let twiml = fields["Twiml"]?.first {
            redirects.withLock { $0.append((sid, twiml)) }
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: #"{"sid":"\#(sid)","status":"in-progress"}"#)))
        }
        let status = fields["Status"]?.first ?? ""
        updates.withLock { $0.append((sid, status)) }
        if status == "canceled" { canceled.withLock { _ = $0.insert(sid) } }
        return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: #"{"sid":"\#(sid)","status":"\#(status)"}"#)))
    }

    // MARK: Playing a call out

    private func play(_ call: Created) async {
        let to = call.value("To") ?? ""
        var sequence = 0
        func status(_ status: String, sequence explicit: Int? = nil, _ extra: [(String, String)] = []) async {
            let n = explicit ?? sequence
            if explicit == nil { sequence += 1 }
            await callback(call.value("StatusCallback")!, [("CallSid", call.sid), ("AccountSid", Self.accountSID), ("CallStatus", status),
                                                          ("SequenceNumber", String(n)), ("To", to), ("From", call.value("From") ?? "")] + extra)
            answeredStatuses.withLock { $0.append((call.sid, status)) }
        }
        await status("initiated")
        try? await Task.sleep(for: .milliseconds(100))
        switch String(to.suffix(2)) {
        case "02":
            await status("busy", sequence: 2)
            await status("ringing", sequence: 1)   // late, out of order: must be ignored
        case "03":
            await status("ringing")
            try? await canceled.wait(for: "the test to cancel \(call.sid)", timeout: .seconds(60)) { $0.contains(call.sid) }
            await status("canceled")
        case "04":
            await status("ringing")
            await status("no-answer")
        case "05":
            await status("failed")
        default:
            await status("ringing")
            try? await Task.sleep(for: .milliseconds(200))
            await status("in-progress")
            if let amd = call.value("AsyncAmdStatusCallback") {
                await callback(amd, [("CallSid", call.sid), ("AccountSid", Self.accountSID), ("AnsweredBy", "human"), ("MachineDetectionDuration", "1800")])
            }
            await stream(call)
            await status("completed", [("CallDuration", "3")])
        }
    }

    private func callback(_ url: String, _ parameters: [(String, String)]) async {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "X-Twilio-Signature", value: TwilioSignature.compute(url: url, parameters: parameters, token: Self.authToken))
        request.body = .bytes(ByteBuffer(string: TwilioCalls.formEncoded(parameters)))
        _ = try? await HTTPClient.shared.execute(request, timeout: .seconds(5))
    }

    /// The TwiML's stream, as Twilio opens it: signed upgrade, connected, start with the
    /// `<Parameter>`s, then the callee's audio every 20 ms until VoiceBridge closes the stream.
    private func stream(_ call: Created) async {
        let twiml = call.value("Twiml") ?? ""
        guard let url = twiml.firstMatch(of: /<Stream url="([^"]+)"/).map({ String($0.1) }) else { return }
        let parameters = Dictionary(twiml.matches(of: /<Parameter name="([^"]+)" value="([^"]*)"\/>/).map { (String($0.1), String($0.2)) },
                                    uniquingKeysWith: { first, _ in first })
        var configuration = WebSocketClientConfiguration()
        configuration.additionalHeaders = [.init("X-Twilio-Signature")!: TwilioSignature.compute(url: url, token: Self.authToken)]
        let streamSid = "MZ" + call.sid.dropFirst(2)
        _ = try? await WebSocketClient.connect(url: url, configuration: configuration, logger: logger) { inbound, outbound, _ in
            try await self.talk(call, streamSid: streamSid, parameters: parameters, inbound: inbound, outbound: outbound)
        }
    }

    private func talk(_ call: Created, streamSid: String, parameters: [String: String], inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
        let sequence = Locked(0)
        @Sendable func send(_ event: MediaStreamEvent) async throws {
            let n = sequence.withLock { n in
                if case .connected = event {} else { n += 1 }
                return n
            }
            try await outbound.write(.text(TwilioMediaStreamCodec.encodeEvent(event, streamSid: streamSid, sequenceNumber: n)))
        }
        try await send(.connected(protocol: "Call", version: "1.0.0"))
        try await send(.start(MediaStreamStart(streamSid: streamSid, accountSid: Self.accountSID, callSid: call.sid, customParameters: parameters)))
        try await withThrowingTaskGroup(of: Void.self) { group in
            if call.value("To")?.hasSuffix("07") == true {
                group.addTask {
                    // 3 s in, and not before a second of the briefing has been heard, as a person
                    // would: on a loaded machine the briefing may start seconds into the stream.
                    try await Task.sleep(for: .seconds(3))
                    try? await self.mediaReceived.wait(for: "a second of the briefing", timeout: .seconds(30)) { ($0[call.sid] ?? 0) >= 50 }
                    try await send(.dtmf(track: "inbound_track", digit: "1"))
                }
            }
            group.addTask {
                let frames = stride(from: 0, to: self.audio.count, by: 160).map { Array(self.audio[$0..<min($0 + 160, self.audio.count)]) }
                    + Array(repeating: [UInt8](repeating: 0xFF, count: 160), count: 1500)
                for (i, frame) in frames.enumerated() {
                    try await send(.media(MediaStreamMedia(chunk: i + 1, timestamp: i * 20, payload: frame)))
                    try await Task.sleep(for: .milliseconds(20))
                }
            }
            for try await message in inbound.messages(maxSize: 1 << 20) {
                guard case .text(let text) = message else { continue }
                switch try? TwilioMediaStreamCodec.decodeCommand(text) {
                case .message(.media, _)?: self.mediaReceived.withLock { $0[call.sid, default: 0] += 1 }
                case .message(.mark(let name), _)?: try await send(.mark(name))   // played at once, as far as this fake is concerned
                default: break
                }
            }
            group.cancelAll()   // VoiceBridge closed the stream
        }
    }
}
