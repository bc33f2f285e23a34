import Bridge
import Foundation
import Realtime
import Testing
import TestLanes
import TestSupport
@testable import Calls

/// A caller who asks for a person is handed to one: the local dialogue offers the transfer, the
/// session REFERs the caller's phone to the target. baresip is the caller's phone (it takes the
/// REFER and calls the person), sipp is the person; our own simulated callee refuses REFER, and
/// VoiceBridge calls the person itself and bridges them — or, when they are busy, the agent takes
/// the call back and says so.
@Suite(.tags(.realTimeCalls)) struct TransferCallTests {
    /// `ssml` spoken by espeak-ng (its default voice and rate) as an 8 kHz WAV, after `before` seconds of silence and followed by `after`.
    static func spoken(ssml: String, before: Double, after: Double) async throws -> URL {
        let speech = try await EspeakCLI.wav(ssml: ssml, voice: "en", wordsPerMinute: 175)
        defer { try? FileManager.default.removeItem(at: speech) }
        return try await Baresip.padded(speech, before: before, after: after, sampleRate: 8000)
    }

    @Test func aCallerWhoAsksForAPersonIsHandedToOne() async throws {
        try #require(Baresip.isInstalled && Sipp.isInstalled)
        let personPort = freeSippPort()
        let person = try Sipp(arguments: ["-sn", "uas", "-i", "127.0.0.1", "-p", "\(personPort)", "-mp", "\(freeSippMediaPort())"], seconds: 30)
        try await person.listening(on: personPort)
        // The agent's greeting and question take about six seconds; then the phone's owner asks,
        // and asks again 8 s later, as a caller does when not heard: beside busy loops (4 Dec) a
        // single request went unheard and the call ended with the question unanswered.
        // Heard the first time, the transfer is done before the second (16 s a call here).
        let microphone = try await Self.spoken(ssml: #"Please connect me to an operator.<break time="8000ms"/>I want to talk to a real person."#,
                                               before: 7.5, after: 20)
        let phone = try Baresip(microphone: microphone, answer: true, user: "0109876701", seconds: 55, rtpPorts: TestPorts.rtp)
        try await Task.sleep(for: .milliseconds(700))
        try await CallHarness.run(tweak: { settings in
            settings.gateway = SIPURI("sip:127.0.0.1:\(phone.sipPort)")!
            settings.simulatedCallee = false
        }) { manager, store, _ in
            var request = CallHarness.seedRequest(questions: ["Can you attend?"], callee: "0109876701")
            request.transferTo = "sip:person@127.0.0.1:\(personPort)"
            let id = try await manager.create(request).outboundId
            let call = try await CallHarness.waitFor(store, id, timeout: .seconds(60)) { $0.state.isTerminal }
            let lines = try await store.transcript(callID: id).map(\.entry.text)
            #expect(call.state == .completed && call.failureReason == "transferred", "\(call.state) \(call.failureReason ?? "") \(lines) \(phone.log.suffix(800))")
            #expect(call.transferredTo == "sip:person@127.0.0.1:\(personPort)" && call.transferOutcome == "answered")
            #expect(lines.contains("[Transfer to sip:person@127.0.0.1:\(personPort): the caller asked for a person]") && lines.contains("[Transfer answered]"), "\(lines)")
        }
        // The person answered (baresip's final NOTIFY said 200, checked above): end both phones
        // rather than wait for their timeouts.
        await phone.stop()
        await person.stop()
        _ = await person.wait()
    }

    /// Our simulated callee refuses REFER (405): VoiceBridge calls the person itself and bridges
    /// them (B2BUA). The person (sipp) echoes what it hears; the caller hangs up once it hears its
    /// own words come back through the bridge — caller → us → person → us → caller — and the
    /// recording holds the person's side.
    @Test func aPeerThatRefusesReferIsBridgedToThePersonByUs() async throws {
        try #require(Sipp.isInstalled)
        let personPort = freeSippPort()
        let person = try Sipp(arguments: ["-sn", "uas", "-i", "127.0.0.1", "-p", "\(personPort)", "-mp", "\(freeSippMediaPort())", "-rtp_echo"], seconds: 60)
        try await person.listening(on: personPort)
        try await CallHarness.run { manager, store, _ in
            // Asked twice, as a caller does when not understood: the recognizer sometimes mishears
            // espeak's first try; said into the bridge, the second request only comes back as echo.
            var request = CallHarness.seedRequest(answers: ["Please connect me to an operator.", "I want to talk to a real person.",
                                                            "Hello, is this the front desk?", "<hangup>"],
                                                  questions: ["Can you attend?"], callee: "0109876702")
            request.transferTo = "sip:desk@127.0.0.1:\(personPort)"
            let id = try await manager.create(request).outboundId
            let call = try await CallHarness.waitFor(store, id, timeout: .seconds(60)) { $0.state.isTerminal }
            let lines = try await store.transcript(callID: id).map(\.entry)
            #expect(call.state == .completed && call.failureReason == "remote_hangup" && call.transferOutcome == "answered",
                    "\(call.state) \(call.failureReason ?? "") \(String(describing: call.transferOutcome)) \(lines.map(\.text))")
            let bridged = try #require(lines.first { $0.text == "[Transfer answered, bridged by VoiceBridge]" }, "\(lines.map(\.text))")
            // The agent's channel of the recording carries the person's audio after the bridge came up.
            let path = try #require(try await store.recordingPath(callID: id))
            let recording = try WAVFile.read(URL(fileURLWithPath: path))
            let agent = recording.channel(1)
            let after = agent.dropFirst(Int(bridged.timestamp * 8000) + 4000)
            let loud = after.filter { abs(Int($0)) > 1000 }.count
            #expect(loud > 2000, "the person's (echoed) audio is on the agent channel after the bridge: \(loud) loud samples of \(after.count)")
        }
        let sipp = await person.wait()
        #expect(sipp.status == 0, "the person's call ended with a BYE from us: \(sipp.output.suffix(400))")
    }

    /// Traced: each try to reach the person is a span of the call's trace, saying how it went and
    /// not whom it called.
    @Test func aBusyPersonGivesTheCallBackToTheAgent() async throws {
        try #require(Sipp.isInstalled)
        try #require(OTLPReceiver.isInstalled, "opentelemetry-proto is missing (make deps)")
        let receiver = try await OTLPReceiver()
        defer { receiver.stop() }
        let personPort = freeSippPort()
        // Busy for a second request too: the caller asks twice (the recognizer sometimes mishears
        // the first), so when the first was understood the second reaches a busy desk again.
        let person = try Sipp(scenario: Sipp.busyCallee, arguments: ["-i", "127.0.0.1", "-p", "\(personPort)"], seconds: 100, calls: 2)
        try await person.listening(on: personPort)
        let tries = Locked(0)
        let spans = try await OTLPReceiver.withTracing(endpoint: receiver.tracesURL) { tracing in
            try await CallHarness.run(tweak: { $0.tracer = tracing.tracer }) { manager, store, _ in
                var request = CallHarness.seedRequest(answers: ["Please connect me to an operator.", "I want to talk to a real person.", "Yes, I can attend."],
                                                      questions: ["Can you attend?"],
                                                      callee: "0109876703")
                request.transferTo = "sip:desk@127.0.0.1:\(personPort)"
                let id = try await manager.create(request).outboundId
                let call = try await CallHarness.waitFor(store, id, timeout: .seconds(90)) { $0.state.isTerminal }
                let lines = try await store.transcript(callID: id).map(\.entry.text)
                #expect(call.state == .completed && call.transferOutcome == "busy", "\(call.state) \(String(describing: call.transferOutcome)) \(lines)")
                #expect(lines.contains { $0.hasPrefix("[Transfer to sip:desk@") } && lines.contains("[Transfer busy]"), "\(lines)")
                #expect(lines.contains { $0.contains("everyone is busy right now") }, "the agent said so: \(lines)")
                #expect(try await store.answers(callID: id).first?.status == .answered, "and went on with the questions")
                tries.withLock { $0 = lines.filter { $0.hasPrefix("[Transfer to sip:desk@") }.count }
            }
            return try await receiver.spans { spans in spans.contains { $0.name == "call" } && spans.filter { $0.name == "transfer" }.count >= tries.value }
        }
        await person.stop()
        _ = await person.wait()
        let call = try #require(spans.first { $0.name == "call" })
        let transfers = spans.filter { $0.name == "transfer" }
        #expect(!transfers.isEmpty && transfers.count == tries.value, "\(transfers.count) spans for \(tries.value) tries")
        #expect(transfers.allSatisfy { $0.parentSpanID == call.spanID && $0.kind == 3 && $0.start >= call.start && $0.end <= call.end
            && $0.attributes["voicebridge.transfer.mode"] as? String == "blind" && $0.attributes["voicebridge.transfer.outcome"] as? String == "busy" }, "\(transfers)")
        #expect(!spans.flatMap { $0.attributes.values.map { "\($0)" } }.contains { $0.contains("desk") || $0.contains("sip:") }, "no target in a span")
    }
}
