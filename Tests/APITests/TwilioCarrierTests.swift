import AsyncHTTPClient
import Foundation
import Logging
import Pipeline
import Realtime
import Testing
import TestSupport
@testable import API
@testable import Calls

/// `carrier: twilio` against a fake Twilio on 127.0.0.1 (`FakeTwilio`): the whole server places
/// calls through the REST API, follows the signed status callbacks, and runs the call on the media
/// stream Twilio opens back to it.
@Suite(.serialized) struct TwilioCarrierTests {
    static func config(fake: FakeTwilio) throws -> VoiceBridgeConfig {
        var config = TwilioStreamTests.config(token: FakeTwilio.authToken)
        config.engine.mode = .echo
        config.http.port = try freeTCPPort()
        config.http.publicURL = "http://127.0.0.1:\(config.http.port)"
        config.carrier = .twilio
        config.twilio.accountSID = FakeTwilio.accountSID
        config.twilio.apiBaseURL = fake.baseURL
        config.twilio.machineDetection = true
        config.outbound.ringTimeoutSeconds = 20
        config.outbound.retry.enabled = false
        return config
    }

    /// The fake and the server for `body`, which gets the server's manager and store.
    static func withTwilio(audio: [UInt8]? = nil, tweak: (inout VoiceBridgeConfig) -> Void = { _ in },
                           _ body: @Sendable (FakeTwilio, CallManager, CallStore, VoiceBridgeConfig) async throws -> Void) async throws {
        let fake = FakeTwilio(audio: try audio ?? WAVFile.read(Fixtures.audio("en_yes_attend.ulaw.wav")).data)
        try await withThrowingTaskGroup(of: Void.self) { group in
            let (ready, readyInput) = AsyncStream.makeStream(of: Int.self)
            group.addTask { try await fake.run { readyInput.yield($0) } }
            var iterator = ready.makeAsyncIterator()
            _ = await iterator.next()
            var tweaked = try Self.config(fake: fake)
            tweak(&tweaked)
            let config = tweaked
            let store = try CallStore(path: config.database.path)
            let calls = try await CallSystem.start(config: config, store: store, logger: Logger(label: "test"))
            try await TwilioStreamTests.withLiveServer(config, store: store, calls: calls) { _ in
                try await body(fake, calls.manager, store, config)
            }
            group.cancelAll()
        }
    }

    static func place(_ manager: CallManager, to number: String) async throws -> String {
        try await manager.create(OutboundCallRequest(callerNumber: "+15550009999", calleeNumber: number, purpose: "the carrier test",
                                                     questions: ["Can you come?"], maxDuration: 60)).outboundId
    }

    static func wait(_ store: CallStore, _ id: String, for states: Set<CallState>, seconds: Int = 30) async throws -> CallRecord {
        let deadline = ContinuousClock.now.advanced(by: .seconds(seconds))
        while ContinuousClock.now < deadline {
            if let call = try await store.call(id: id), states.contains(call.state) { return call }
            await store.waitForEvents(timeout: .milliseconds(200))   // a change of state appends an event, which wakes this
        }
        let state = try await store.call(id: id)?.state.rawValue ?? "missing"
        throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "call \(id) is still \(state)"])
    }

    @Test func aCallGoesThroughTwilioAndItsMediaStreamIsTheLeg() async throws {
        try await Self.withTwilio { fake, manager, store, config in
            let id = try await Self.place(manager, to: "+15550000001")
            let connected = try await Self.wait(store, id, for: [.connected])
            let created = try #require(fake.creates.withLock { $0.first })
            // What Twilio was asked for.
            #expect(created.value("To") == "+15550000001" && created.value("From") == "+15550009999")
            #expect(created.value("StatusCallback") == "\(config.http.publicURL!)/twilio/call-status?outbound_id=\(id)")
            #expect(created.form["StatusCallbackEvent"] == ["initiated", "ringing", "answered", "completed"])
            #expect(created.value("Timeout") == "20" && created.value("MachineDetection") == "Enable" && created.value("AsyncAmd") == "true")
            #expect(created.value("AsyncAmdStatusCallback") == "\(config.http.publicURL!)/twilio/amd?outbound_id=\(id)")
            let twiml = try #require(created.value("Twiml"))
            #expect(twiml.contains(#"<Connect><Stream url="ws://127.0.0.1:\#(config.http.port)/twilio/stream">"#))
            #expect(twiml.contains(#"<Parameter name="outbound_id" value="\#(id)"/>"#))
            #expect(connected.callId == created.sid, "the Twilio SID is the call's external id")

            // The echo engine repeats the callee's words back over the stream; then the operator ends the call.
            try await fake.mediaReceived.wait(for: "50 frames of the agent's audio on Twilio's stream", timeout: .seconds(20)) { ($0[created.sid] ?? 0) >= 50 }
            try await manager.cancel(id: id)
            let ended = try await Self.wait(store, id, for: [.cancelled, .completed, .failed])
            #expect(ended.state == .cancelled && ended.answeredBy == "human")
            try await fake.updates.wait(for: "our hang-up at Twilio") { !$0.isEmpty }
            #expect(fake.updates.withLock { $0.map(\.status) } == ["completed"], "our hang-up ends the call at Twilio")
            #expect(try await store.recordingPath(callID: id) != nil)
            let statuses = try await store.events(callID: id).filter { $0.type == "twilio_call_status" }.compactMap { event in
                (try? JSONSerialization.jsonObject(with: Data(event.payload.utf8)) as? [String: String])?["call_status"]
            }
            #expect(Array(statuses.prefix(3)) == ["initiated", "ringing", "in-progress"])
        }
    }

    /// A transfer on a Twilio call replaces its TwiML with a `<Dial>` to the person (REST update):
    /// Twilio ends the stream and dials; the call is handed off.
    @Test func aTransferRedirectsTheCallToDial() async throws {
        try await Self.withTwilio { fake, manager, store, config in
            let id = try await Self.place(manager, to: "+15550000001")
            _ = try await Self.wait(store, id, for: [.connected])
            let sid = try #require(fake.creates.withLock { $0.first?.sid })
            let carrier = try #require(await manager.settings.carrier)
            let transfer = CallManager.twilioTransfer(sid: sid, carrier: carrier, callerNumber: "+15550009999", logger: Logger(label: "test"))
            let result = await transfer("+15550100099")
            guard case .finished(.handedOff) = result else { Issue.record("handed to Twilio's <Dial>: \(result)"); return }
            let redirect = fake.redirects.withLock { $0.first }
            #expect(redirect?.sid == sid)
            #expect(redirect?.twiml == #"<Response><Dial callerId="+15550009999" timeout="25"><Number>+15550100099</Number></Dial></Response>"#, "\(String(describing: redirect))")
            #expect(TwiML.dial("sip:desk@pbx.example.com", callerID: nil) == #"<Response><Dial timeout="25"><Sip>sip:desk@pbx.example.com</Sip></Dial></Response>"#)
            try await manager.cancel(id: id)
            _ = try await Self.wait(store, id, for: [.cancelled, .completed, .failed])
        }
    }

    /// A warm transfer on a Twilio call: Twilio calls the person with TwiML that streams their side
    /// back here, signed callbacks under the caller's call id; answered, the person's stream is a
    /// leg the session runs (audio both ways) until it hangs up; busy and unanswered are said so.
    @Test func aWarmTransferCallsThePersonAndTheirStreamIsTheirLeg() async throws {
        try await Self.withTwilio { fake, manager, store, config in
            let id = try await Self.place(manager, to: "+15550000001")
            _ = try await Self.wait(store, id, for: [.connected])
            let carrier = try #require(await manager.settings.carrier)
            let result = await manager.callPersonThroughTwilio("+15550000007", for: id, carrier: carrier, from: "+15550009999")
            guard case .bridged(let person) = result else { Issue.record("the person answered: \(result)"); return }
            let created = try #require(fake.creates.withLock { $0.first { $0.value("To") == "+15550000007" } })
            #expect(created.value("From") == "+15550009999" && created.value("Timeout") == "25")
            #expect(created.value("StatusCallback") == "\(config.http.publicURL!)/twilio/call-status?outbound_id=\(id).person")
            #expect(created.value("Twiml")?.contains(#"<Parameter name="outbound_id" value="\#(id).person"/>"#) == true)

            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await person.run() }
                var events = person.events.makeAsyncIterator()
                var heard = 0
                while heard < 10, let event = await events.next() {
                    if case .media = event { heard += 1; person.mediaEventConsumed() }
                }
                #expect(heard == 10, "the person's audio arrives on their leg")
                for _ in 0..<25 { await person.send(.media([UInt8](repeating: 0x55, count: 160))) }
                try await fake.mediaReceived.wait(for: "our audio on the person's stream", timeout: .seconds(5)) { ($0[created.sid] ?? 0) >= 10 }
                await person.hangUp()
                try await group.waitForAll()
            }
            let deadline = ContinuousClock.now.advanced(by: .seconds(5))
            while try await !store.events(callID: id).contains(where: { $0.type == "twilio_transfer_status" && $0.payload.contains("completed") }),
                  ContinuousClock.now < deadline { await store.waitForEvents(timeout: .seconds(1)) }
            #expect(try await store.events(callID: id).contains { $0.type == "twilio_transfer_status" && $0.payload.contains("completed") },
                    "the person's call reports under the caller's; hanging up their stream ended it")

            // The first person's call reports under the same id as the next one's: a late callback of
            // it ("completed", CI beside busy loops) must not be taken for the busy person's outcome.
            async let busy = manager.callPersonThroughTwilio("+15550000002", for: id, carrier: carrier, from: "+15550009999")
            try await fake.creates.wait(for: "the busy person's call") { $0.contains { $0.value("To") == "+15550000002" } }
            await manager.twilioStatus(outboundID: id + CallManager.personLegSuffix, callSid: created.sid, status: "completed", sequence: 99)
            let busyOutcome = await busy
            guard case .finished(.busy) = busyOutcome else {
                Issue.record("busy: \(busyOutcome)"); return
            }
            guard case .finished(.noAnswer) = await manager.callPersonThroughTwilio("+15550000004", for: id, carrier: carrier, from: "+15550009999") else {
                Issue.record("no answer"); return
            }
            try await manager.cancel(id: id)
            _ = try await Self.wait(store, id, for: [.cancelled, .completed, .failed])
        }
    }

    /// A warm transfer on a whole Twilio call, offline: the callee (Twilio's stream) asks for a
    /// person, the local engine hands over, Twilio calls the person, whose stream hears the
    /// briefing while the caller holds; the person presses 1 and from then on the caller's stream
    /// carries the person's audio.
    @Test func aWarmTransferOnATwilioCallBridgesThePersonWhoPresses1() async throws {
        let line = try await LocalVoice(tts: try EspeakSynthesizer()).frames(saying: "I want to talk to a real person.").flatMap(\.samples)
        // Six seconds of line silence first: the greeting is said before the callee speaks.
        let audio = [UInt8](repeating: 0xFF, count: 48_000) + G711.encode(line, law: .muLaw)
        try await Self.withTwilio(audio: audio, tweak: { config in
            config.engine.mode = .local
            config.transfer.target = "+15550000007"
            config.transfer.mode = .warm
        }) { fake, manager, store, _ in
            let id = try await Self.place(manager, to: "+15550000001")
            let deadline = ContinuousClock.now.advanced(by: .seconds(60))
            var lines: [String] = []
            while ContinuousClock.now < deadline, !lines.contains("[Transfer answered, warm: the person accepted]") {
                try await Task.sleep(for: .milliseconds(200))
                lines = try await store.transcript(callID: id).map(\.entry.text)
            }
            #expect(lines.contains("[Transfer answered, warm: the person accepted]"), "\(lines)")
            #expect(lines.contains { $0.hasPrefix("[Briefing for the person: Hello, this is the AI assistant") }, "\(lines)")
            let (caller, person) = fake.creates.withLock { calls in (calls.first { $0.value("To") == "+15550000001" }?.sid, calls.first { $0.value("To") == "+15550000007" }?.sid) }
            let callerSID = try #require(caller), personSID = try #require(person)
            #expect(fake.mediaReceived.withLock { $0[personSID] ?? 0 } >= 50, "the person heard the briefing (and pressed 1 on it)")
            let before = fake.mediaReceived.withLock { $0[callerSID] ?? 0 }
            try await fake.mediaReceived.wait(for: "the person's audio on the caller's stream") { ($0[callerSID] ?? 0) - before >= 50 }
            #expect(try await store.call(id: id)?.transferOutcome == "answered")
            try await manager.cancel(id: id)
            _ = try await Self.wait(store, id, for: [.cancelled, .completed, .failed])
        }
    }

    @Test func finalStatusesBeforeAnswerBecomeTheCallsOutcome() async throws {
        try await Self.withTwilio { fake, manager, store, _ in
            let busy = try await Self.place(manager, to: "+15550000002")
            let noAnswer = try await Self.place(manager, to: "+15550000004")
            let failed = try await Self.place(manager, to: "+15550000005")
            #expect(try await Self.wait(store, busy, for: [.busy, .failed]).state == .busy)
            #expect(try await Self.wait(store, noAnswer, for: [.noAnswer, .failed]).state == .noAnswer)
            #expect(try await Self.wait(store, failed, for: [.failed]).failureReason == "twilio: the call failed")
            // The fake sends the busy call a late `ringing` after its `busy`: once VoiceBridge has
            // answered that callback, it has taken it in.
            let busySid = try #require(fake.creates.withLock { $0.first { $0.value("To") == "+15550000002" }?.sid })
            try await fake.answeredStatuses.wait(for: "the late ringing taken in") { $0.contains { $0 == (busySid, "ringing") } }
            #expect(fake.answeredStatuses.withLock { $0.filter { $0.sid == busySid }.map(\.status) } == ["initiated", "busy", "ringing"])
            #expect(try await store.call(id: busy)?.state == .busy, "a late, out-of-order ringing changes nothing")
        }
    }

    @Test func cancellingWhileItRingsCancelsItAtTwilio() async throws {
        try await Self.withTwilio { fake, manager, store, _ in
            let id = try await Self.place(manager, to: "+15550000003")
            _ = try await Self.wait(store, id, for: [.ringing])
            try await manager.cancel(id: id)
            let ended = try await Self.wait(store, id, for: [.cancelled, .failed])
            #expect(ended.state == .cancelled && ended.failureReason == "cancelled by operator")
            #expect(fake.updates.withLock { $0.map(\.status) } == ["canceled"])
        }
    }

    @Test func restErrorsFailTheCallWithTwiliosCodeAndA429IsRetried() async throws {
        try await Self.withTwilio { fake, manager, store, _ in
            let invalid = try await Self.place(manager, to: "+1555")
            let call = try await Self.wait(store, invalid, for: [.failed])
            #expect(call.failureReason?.hasPrefix("twilio_error 21211: The 'To' number +1555 is not a valid phone number.") == true, "\(call.failureReason ?? "")")
            let retried = try await Self.place(manager, to: "+15550000006")
            _ = try await Self.wait(store, retried, for: [.connected])
            #expect(fake.refused429.withLock { $0 } && fake.creates.withLock { $0.count } == 1, "refused once with 429, created on the retry")
            try await manager.cancel(id: retried)
            _ = try await Self.wait(store, retried, for: [.cancelled])
        }
    }

    @Test func aForgedCallbackIsRefused() async throws {
        try await Self.withTwilio { _, _, _, config in
            var request = HTTPClientRequest(url: "\(config.http.publicURL!)/twilio/call-status?outbound_id=ob-00000000")
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            request.headers.add(name: "X-Twilio-Signature", value: "forged=")
            request.body = .bytes(.init(string: "CallSid=CA1&CallStatus=completed&SequenceNumber=9"))
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(5))
            #expect(response.status == .forbidden)
        }
    }

    @Test func aBadAccountTokenFailsTheCallWith20003() async throws {
        try await Self.withTwilio(tweak: { $0.twilio.authToken = "wrong-token-000000000000000000000" }) { _, manager, store, _ in
            let id = try await Self.place(manager, to: "+15550000001")
            #expect(try await Self.wait(store, id, for: [.failed]).failureReason == "twilio_error 20003: Authenticate")
        }
    }

    /// What the REST answers and callbacks become, table by table (PROTOCOLS-2 §1.2, §1.4, §1.6).
    @Test func statusesVerdictsAndErrorsMapAsDocumented() {
        #expect(TwilioCarrier.finalState("busy")?.0 == .busy && TwilioCarrier.finalState("no-answer")?.0 == .noAnswer)
        #expect(TwilioCarrier.finalState("canceled")?.0 == .cancelled && TwilioCarrier.finalState("failed")?.0 == .failed)
        #expect(TwilioCarrier.finalState("ringing") == nil && TwilioCarrier.finalState("in-progress") == nil)
        #expect(["human", "machine_start", "machine_end_beep", "machine_end_silence", "fax", "unknown"].map(TwilioCarrier.answeredBy)
                == ["human", "machine", "machine", "machine", "machine", "unknown"])
        let failure = TwilioCalls.failure(status: 400, body: #"{"code":21211,"message":"The 'To' number +1555 is not a valid phone number.","more_info":"https://www.twilio.com/docs/errors/21211","status":400}"#)
        #expect(failure.code == 21211 && !failure.isRetryable && failure.description.hasPrefix("twilio_error 21211: "))
        #expect(TwilioCalls.failure(status: 429, body: "").isRetryable && TwilioCalls.failure(status: 503, body: "<html>").description == "twilio_error http 503: HTTP 503: <html>")
        #expect(TwilioCalls.formEncoded([("Twiml", #"<Response a="b&c"/>"#), ("StatusCallbackEvent", "initiated"), ("StatusCallbackEvent", "ringing"), ("From", "+82 10")])
                == "Twiml=%3CResponse%20a%3D%22b%26c%22%2F%3E&StatusCallbackEvent=initiated&StatusCallbackEvent=ringing&From=%2B82%2010")
        var call = CallRecord(outboundId: "ob-1", callerNumber: "+1", calleeNumber: "+2", purpose: "p", questions: ["q"])
        call.calleeNumber = #"+2"&<x>"#
        let twiml = TwilioCarrier(calls: TwilioCalls(settings: .init(accountSID: "AC1", username: "AC1", password: "t")), publicURL: "https://vb.example.com/").twiml(for: call)
        #expect(twiml == #"<Response><Connect><Stream url="wss://vb.example.com/twilio/stream"><Parameter name="outbound_id" value="ob-1"/><Parameter name="from" value="+1"/><Parameter name="to" value="+2&quot;&amp;&lt;x&gt;"/></Stream></Connect></Response>"#)
    }
}
