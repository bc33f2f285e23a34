import Bridge
import Dialogue
import Egress
import Foundation
import Pipeline
import Realtime
import Testing
@testable import Calls

/// The bot engine's bookkeeping, message by message (no socket: `receive` is what the socket
/// reader calls): items, marks held until played, clear, the extension, what goes to the bot.
@Suite struct StreamBotEngineTests {
    let context: ConversationContext = {
        var c = ConversationContext(purpose: "the meeting", questions: ["Can you come?", "When?"], displayName: "ABC")
        c.call = .init(id: "ob-1", direction: "outbound", from: "0701234567", to: "0109876543")
        return c
    }()

    func engine() -> StreamBotEngine { StreamBotEngine(url: "ws://127.0.0.1:1/bot", context: context, egress: EgressPolicy(allowsLoopback: true)) }

    func drained<T>(_ queue: BoundedQueue<T>) -> [T] {
        var out: [T] = []
        while let message = queue.poll() { if case .data(let e) = message { out.append(e) } }
        return out
    }

    func media(_ bytes: [UInt8]) -> String {
        #"{"event":"media","streamSid":"MZ1","media":{"payload":"\#(Data(bytes).base64EncodedString())"}}"#
    }

    func mark(_ name: String) -> String { #"{"event":"mark","streamSid":"MZ1","mark":{"name":"\#(name)"}}"# }

    func echoes(_ e: StreamBotEngine) -> [String] {
        drained(e.outbox).compactMap { if case .mark(let name) = $0 { name } else { nil } }
    }

    @Test func aMarkWaitsUntilTheAudioBeforeItHasPlayed() async {
        let e = engine()
        await e.receive(media([1, 2, 3]))
        await e.receive(media([4]))
        await e.receive(mark("first"))
        await e.receive(media([5]))
        await e.receive(mark("second"))
        #expect(drained(e.events) == [.audioBytes(item: "bot-1", bytes: [1, 2, 3]), .audioBytes(item: "bot-1", bytes: [4]), .audioDone(item: "bot-1"),
                                      .audioBytes(item: "bot-2", bytes: [5]), .audioDone(item: "bot-2")])
        #expect(echoes(e) == [])
        await e.itemPlayed("bot-2")   // out of order: "first" still waits, and "second" behind it
        #expect(echoes(e) == [])
        await e.itemPlayed("bot-1")
        #expect(echoes(e) == ["first", "second"])
    }

    @Test func aMarkWithNothingQueuedComesBackAtOnce() async {
        let e = engine()
        await e.receive(mark("now"))
        #expect(echoes(e) == ["now"])
        #expect(drained(e.events) == [])
    }

    @Test func clearDropsEveryUnplayedItemAndReturnsEveryPendingMark() async {
        let e = engine()
        await e.receive(media([1]))
        await e.receive(mark("a"))
        await e.receive(media([2]))
        await e.receive(mark("b"))
        await e.receive(media([3]))
        _ = drained(e.events)
        await e.receive(#"{"event":"clear","streamSid":"MZ1"}"#)
        #expect(drained(e.events) == [.clearAudio(items: ["bot-1", "bot-2", "bot-3"])])
        #expect(echoes(e) == ["a", "b"])
        await e.receive(media([4]))
        #expect(drained(e.events) == [.audioBytes(item: "bot-4", bytes: [4])], "audio after a clear is a new item")
    }

    @Test func theExtensionFillsTheResultAndHangsUp() async {
        let e = engine()
        await e.receive(#"{"event":"voicebridge","voicebridge":{"type":"transcript","speaker":"caller","text":"Yes."}}"#)
        await e.receive(#"{"event":"voicebridge","voicebridge":{"type":"answer","question_id":"q1","status":"answered","answer":"yes","confidence":0.8}}"#)
        await e.receive(media([9]))
        await e.receive(#"{"event":"voicebridge","voicebridge":{"type":"hangup","reason":"done"}}"#)
        let events = drained(e.events)
        #expect(events.first == .transcript(speaker: .customer, text: "Yes.", item: nil))
        guard case .taskState(let tracker) = events[1] else { Issue.record("no task state: \(events)"); return }
        #expect(tracker.answers[0].status == .answered && tracker.answers[0].answerText == "yes" && tracker.answers[0].confidence == 0.8)
        #expect(tracker.answers[1].status == .pending)
        #expect(Array(events.suffix(3)) == [.audioBytes(item: "bot-1", bytes: [9]), .audioDone(item: "bot-1"), .endCall(reason: "done", afterItem: "bot-1")])
        #expect(await e.stop().finalAnswers.map(\.status) == [.answered, .notAsked])
    }

    @Test func whatABotGetsWrongIsCountedAndSkipped() async {
        let e = engine()
        await e.receive("{not json")
        await e.receive(#"{"event":"dance"}"#)
        await e.receive(#"{"event":"voicebridge","voicebridge":{"type":"future-thing"}}"#)
        await e.receive(#"{"event":"voicebridge","voicebridge":{"type":"answer","status":"answered"}}"#)
        await e.receive(#"{"event":"media","media":{"payload":"***"}}"#)
        #expect(e.counters.unknown == 2 && e.counters.malformed == 3)
        #expect(drained(e.events) == [])
    }

    @Test func theBotGetsCallerAudioDTMFAndStopInOrder() async {
        let e = engine()
        await e.send(muLaw: [UInt8](repeating: 0xFF, count: 160), speech: .silence)
        await e.send(muLaw: [UInt8](repeating: 0x7F, count: 160), speech: .silence)
        await e.dtmf("5")
        _ = await e.stop()
        let sent = drained(e.outbox)
        #expect(sent.count == 4)
        #expect(sent[0] == .dtmf(track: "inbound_track", digit: "5"), "DTMF overtakes queued audio")
        #expect(sent[1] == .stop, "so does stop: the call is over")
        #expect(sent[2] == .media(MediaStreamMedia(chunk: 1, timestamp: 0, payload: [UInt8](repeating: 0xFF, count: 160))))
        #expect(sent[3] == .media(MediaStreamMedia(chunk: 2, timestamp: 20, payload: [UInt8](repeating: 0x7F, count: 160))))
    }

    @Test func startCarriesTheCallInCustomParameters() throws {
        let start = engine().startMessage
        #expect(start.callSid == "ob-1" && start.streamSid.hasPrefix("MZ") && start.streamSid.count == 34)
        let p = start.customParameters
        #expect(p["call_id"] == "ob-1" && p["from"] == "0701234567" && p["to"] == "0109876543" && p["direction"] == "outbound")
        #expect(p["purpose"] == "the meeting" && p["display_name"] == "ABC" && p["voicebridge_extension"] == "1")
        #expect(p["greeting"] == "Hello, this is the AI assistant of ABC, calling about the meeting.")
        let questions = try JSONSerialization.jsonObject(with: Data(p["questions"]!.utf8)) as? [[String: String]]
        #expect(questions == [["id": "q1", "text": "Can you come?"], ["id": "q2", "text": "When?"]])
        // What Twilio's encoder writes for it parses back to the same start.
        let text = TwilioMediaStreamCodec.encodeEvent(.start(start), streamSid: start.streamSid, sequenceNumber: 1)
        guard case .message(.start(let decoded), _) = try TwilioMediaStreamCodec.decodeEvent(text) else { Issue.record("not a start: \(text)"); return }
        #expect(decoded == start)
    }

    /// An item's last mark says so, even when it falls on a 200 ms boundary.
    @Test func anItemsLastMarkIsAnEndMark() {
        var stage = MarkStage(generation: { 3 })
        let frame = OutboundFrame(item: "r1", audio: AudioFrame(samples: [Int16](repeating: 0, count: 160), sampleRate: 8000))
        var marks: [String] = []
        for _ in 0..<20 { for case .mark(let name) in stage.outputs(for: frame) { marks.append(name) } }
        for case .mark(let name) in stage.outputs(for: .end) { marks.append(name) }
        #expect(marks == ["r1#200#3", "r1#200#3", "r1#0#3#end"])
        #expect(MarkStage.parse("r1#0#3#end")! == ("r1", 0, 3, true))
        #expect(MarkStage.parse("r1#200#3")! == ("r1", 200, 3, false))
        #expect(MarkStage.parse("r1#200#3#later") == nil)
        for case .mark(let name) in stage.outputs(for: .end) { Issue.record("a second end with no audio between: \(name)") }
    }
}
