import AsyncHTTPClient
import Bridge
import Calls
import Egress
import Foundation
import Logging
import NIOCore
import Pipeline
import Testing
import TestSupport

/// Asterisk's AudioSocket through the whole server (`audiosocket.listen`), the peer a client
/// written from the protocol's description (`AudioSocketPeer`): a call the agent answers and the
/// caller talks over, stored like any inbound call; and peers that misbehave — not allowed,
/// garbage, no UUID, cut off mid-message, silent and never hanging up — each ended with the reason
/// while the server goes on taking calls.
@Suite(.serialized) struct AudioSocketCallTests {
    static func config() -> VoiceBridgeConfig {
        var c = TwilioStreamTests.config()
        c.audioSocket.listen = .init(host: "127.0.0.1", port: 0)
        c.audioSocket.allowedPeers = [IPNetwork("127.0.0.1")!]
        return c
    }

    /// The server on `config`, its AudioSocket port and store for `body`.
    static func withServer(_ config: VoiceBridgeConfig, _ body: @Sendable (Int, CallStore) async throws -> Void) async throws {
        let store = try await CallStore.open(config.database.location)
        let calls = try await CallSystem.start(config: config, store: store, logger: Logger(label: "test"))
        let port = try #require(calls.audioSocketPort)
        try await TwilioStreamTests.withLiveServer(config, store: store, calls: calls) { _ in try await body(port, store) }
    }

    /// The inbound call whose call id is `uuid`, if there is one yet.
    static func call(_ uuid: UUID, in store: CallStore) async throws -> CallRecord? {
        try await store.calls(inStates: CallState.allCases).first { $0.callId == uuid.uuidString.lowercased() }
    }

    /// Returns once `done` holds, looking again at each of the store's events (60 s at most).
    static func waitUntil(_ what: String, in store: CallStore, _ done: @Sendable (CallStore) async throws -> Bool) async throws {
        let deadline = ContinuousClock.now.advanced(by: .seconds(60))
        while ContinuousClock.now < deadline {
            if try await done(store) { return }
            await store.waitForEvents(timeout: .seconds(1))
        }
        throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "waited 60 s for \(what)"])
    }

    /// The inbound call whose call id is `uuid`, once it has ended.
    static func endedCall(_ uuid: UUID, in store: CallStore) async throws -> CallRecord {
        try await waitUntil("the call \(uuid) to end", in: store) { try await call(uuid, in: $0)?.state.isTerminal == true }
        return try #require(try await call(uuid, in: store))
    }

    static func loud(_ message: AudioSocketPeer.Message) -> Bool { message.kind == 0x10 && message.samples.contains { abs(Int($0)) > 2000 } }

    /// The local engine greets over AudioSocket; the caller answers over the greeting (a barge-in)
    /// and hangs up: the call is stored as an inbound call under Asterisk's UUID, the greeting cut.
    @Test func anAudioSocketCallIsAnsweredTalkedOverAndStored() async throws {
        let config = Self.config()
        let answer = G711.decode(try WAVFile.read(Fixtures.audio("en_yes_attend.ulaw.wav")).data, law: .muLaw)
        let uuid = UUID()
        try await Self.withServer(config) { port, store in
            let peer = try await AudioSocketPeer.connect(port: port)
            try await peer.sendUUID(uuid)
            // The channel's audio flows all along: silence until the greeting is heard, then the answer over it.
            let silence = [Int16](repeating: 0, count: 160)
            let listening = Task {
                while !Task.isCancelled { try await peer.play(silence) }
            }
            try await peer.wait(for: "the greeting") { $0.messages.filter(Self.loud).count >= 25 }
            listening.cancel()
            _ = await listening.result
            try await peer.play(answer)
            // Silence again until the agent has written the answer down (beside make test the
            // recognizer took longer than any fixed pause), then the hang-up.
            let after = Task {
                while !Task.isCancelled { try await peer.play(silence) }
            }
            try await Self.waitUntil("the caller's line in the transcript", in: store) { store in
                guard let call = try await Self.call(uuid, in: store) else { return false }
                return try await store.transcript(callID: call.outboundId).contains { $0.entry.speaker == .customer }
            }
            after.cancel()
            _ = await after.result
            try await peer.hangUp()
            let call = try await Self.endedCall(uuid, in: store)
            #expect(call.direction == .inbound && call.state == .completed && call.failureReason == "remote_hangup", "\(call.state) \(call.failureReason ?? "")")
            let transcript = try await store.transcript(callID: call.outboundId).map(\.entry)
            #expect(transcript.first?.speaker == .ai && transcript.contains { $0.speaker == .customer }, "\(transcript.map(\.text))")
            let report = try #require(try await store.report(callID: call.outboundId))
            #expect(!report.interruptions.isEmpty, "the caller talked over the greeting: a barge-in")
            #expect(peer.inbox.value.messages.allSatisfy { $0.kind == 0x10 || $0.kind == 0x00 }, "only audio, and perhaps the hang-up")
        }
    }

    @Test func peersThatMisbehaveAreEndedAndTheServerGoesOn() async throws {
        var config = Self.config()
        config.engine.mode = .echo
        config.mediaStreams.startTimeoutSeconds = 1
        config.sip.mediaTimeoutSeconds = 2
        try await Self.withServer(config) { port, store in
            // Garbage where the UUID should be: closed, nothing stored.
            let garbage = try await AudioSocketPeer.connect(port: port)
            try await garbage.sendRaw([0x42, 0x00, 0x00])
            try await garbage.wait(for: "the close after garbage") { $0.closed }
            // No UUID at all: closed after media_streams.start_timeout_seconds.
            let mute = try await AudioSocketPeer.connect(port: port)
            try await mute.wait(for: "the close without a UUID") { $0.closed }
            // Cut off inside an audio message: the call ends as a hang-up.
            let cut = UUID()
            let cutPeer = try await AudioSocketPeer.connect(port: port)
            try await cutPeer.sendUUID(cut)
            try await cutPeer.play([Int16](repeating: 0, count: 1600))
            try await cutPeer.sendRaw([0x10, 0x01, 0x40] + [UInt8](repeating: 0, count: 100))
            cutPeer.close()
            let cutCall = try await Self.endedCall(cut, in: store)
            #expect(cutCall.state == .completed && cutCall.failureReason == "remote_hangup", "\(cutCall.state) \(cutCall.failureReason ?? "")")
            // Silent after its UUID and never hanging up: after sip.media_timeout the server hangs up (0x00) and closes.
            let silent = UUID()
            let silentPeer = try await AudioSocketPeer.connect(port: port)
            try await silentPeer.sendUUID(silent)
            try await silentPeer.wait(for: "our hang-up") { $0.closed && $0.messages.last?.kind == 0x00 }
            let silentCall = try await Self.endedCall(silent, in: store)
            #expect(silentCall.state == .completed && silentCall.failureReason == "media_timeout", "\(silentCall.state) \(silentCall.failureReason ?? "")")
            // Still answering: a tone comes back from the echo engine.
            let good = UUID()
            let peer = try await AudioSocketPeer.connect(port: port)
            try await peer.sendUUID(good)
            let tone = (0..<8000).map { Int16(8000 * sin(2 * Double.pi * 440 * Double($0) / 8000)) }
            try await peer.play(tone + [Int16](repeating: 0, count: 12_000))
            try await peer.wait(for: "the echo") { $0.messages.filter(Self.loud).count >= 10 }
            // Its hang-up message, and the socket left open: the server closes it.
            try await peer.send(kind: 0x00, payload: [])
            try await peer.wait(for: "the server's close after the hang-up") { $0.closed }
            #expect(try await Self.endedCall(good, in: store).failureReason == "remote_hangup")
            let stored = try await store.calls(inStates: CallState.allCases).compactMap(\.callId)
            #expect(Set(stored) == Set([cut, silent, good].map { $0.uuidString.lowercased() }), "garbage and a mute peer made no call: \(stored)")
        }
    }

    /// `POST /api/audiosocket/calls` on the live server, as a dialplan's CURL() sends it: the
    /// numbers in the query, an empty JSON body, `?format=text` for the bare UUID.
    static func announce(port: Int, token: String?, query: String) async throws -> (status: UInt, body: String) {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/api/audiosocket/calls?\(query)")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        request.body = .bytes(ByteBuffer(string: "{}"))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        return (response.status.code, String(buffer: try await response.body.collect(upTo: 4096)))
    }

    /// The dialplan announces the call through the API with its numbers and connects with the
    /// UUID it got: the call is stored with those numbers. With `audiosocket.require_binding` a
    /// UUID nobody announced, and an announced one used a second time, are closed and store
    /// nothing; the API wants its token, and says what is wrong with a bad number.
    @Test func aCallTheDialplanAnnouncedHasItsNumbersAndOthersAreRefused() async throws {
        var config = Self.config()
        config.engine.mode = .echo
        config.api.tokens = ["dialplan-token"]
        config.audioSocket.requireBinding = true
        let store = try await CallStore.open(config.database.location)
        let calls = try await CallSystem.start(config: config, store: store, logger: Logger(label: "test"))
        let port = try #require(calls.audioSocketPort)
        try await TwilioStreamTests.withLiveServer(config, store: store, calls: calls) { http in
            #expect(try await Self.announce(port: http, token: nil, query: "from=%2B15550001111").status == 401, "the API's token is needed")
            let bad = try await Self.announce(port: http, token: "dialplan-token", query: "from=not-a-number&format=text")
            #expect(bad.status == 422 && bad.body.contains("from"), "\(bad)")
            let announced = try await Self.announce(port: http, token: "dialplan-token", query: "from=%2B15550001111&to=%2B15550002222&format=text")
            #expect(announced.status == 201, "\(announced)")
            let uuid = try #require(UUID(uuidString: announced.body), "the bare UUID: \(announced.body)")
            let json = try await Self.announce(port: http, token: "dialplan-token", query: "to=%2B15550002222")
            #expect(json.status == 201 && json.body.contains(#""uuid":"#) && json.body.contains(#""expires_in_seconds":"#), "\(json)")

            // The announced call: answered, the echo comes back, stored with its numbers.
            let peer = try await AudioSocketPeer.connect(port: port)
            try await peer.sendUUID(uuid)
            let tone = (0..<8000).map { Int16(8000 * sin(2 * Double.pi * 440 * Double($0) / 8000)) }
            try await peer.play(tone + [Int16](repeating: 0, count: 12_000))
            try await peer.wait(for: "the echo") { $0.messages.filter(Self.loud).count >= 10 }
            try await peer.hangUp()
            let call = try await Self.endedCall(uuid, in: store)
            #expect(call.callerNumber == "+15550001111" && call.calleeNumber == "+15550002222" && call.direction == .inbound,
                    "\(call.callerNumber) → \(call.calleeNumber)")

            // The same UUID again, and one nobody announced: closed, nothing more stored.
            for (what, id) in [("a UUID used already", uuid), ("a UUID nobody announced", UUID())] {
                let stranger = try await AudioSocketPeer.connect(port: port)
                try await stranger.sendUUID(id)
                try await stranger.wait(for: "the close of \(what)") { $0.closed }
            }
            let stored = try await store.calls(inStates: CallState.allCases)
            #expect(stored.count == 1, "only the announced call is stored: \(stored.map(\.callId))")
        }
    }

    @Test func aPeerNotAllowedIsClosedAtOnce() async throws {
        var config = Self.config()
        config.audioSocket.allowedPeers = [IPNetwork("10.9.9.9")!]
        try await Self.withServer(config) { port, store in
            let peer = try await AudioSocketPeer.connect(port: port)
            try? await peer.sendUUID(UUID())   // the socket may be closed already
            try await peer.wait(for: "the close") { $0.closed }
            #expect(peer.inbox.value.messages.isEmpty)
            #expect(try await store.calls(inStates: CallState.allCases).isEmpty)
        }
    }
}
