import Dialogue
import Foundation
import Testing
import TestLanes
import TestSupport
@testable import Calls
@testable import Realtime

/// An answer heard too unsurely to act on, over whole calls in virtual time: the simulated callee
/// answers over a hissing line (`<noise …>`), the recognizer writes words it is unsure of, and
/// the dialogue asks again, then stores the question `unclear` with what it heard — where with
/// the floor off (the default: `make bench` found no floor that pays in either language) the same
/// call stores them `answered`. At floors an operator sets (`engine.local.answer_confidence`):
/// English (Moonshine) 0.6, Korean (Whisper) 0.15 — the floors the tuning personas pointed to
/// (docs/guide/conversation.md, "How sure before storing").
/// Its lines sit near the floor: it ran alone (`.timed`) while espeak-ng's speech depended on what
/// the process had synthesized before; since each synthesis is a process of its own
/// (`EspeakCommand`), it runs beside the other virtual-time suites.
@Suite(.serialized, .tags(.virtualTime)) struct AnswerConfidenceCallTests {
    struct Case: Sendable, CustomStringConvertible {
        var language: String?
        var question: String
        var line: String
        var floor: AnswerConfidence
        var description: String { language ?? "en" }
    }

    static let cases = [
        // Over the hiss "No, I can't." comes out "I can" — a yes, and wrong. The levels sit in the
        // middle of the range where every hearing scores under the floor (30 Nov, each synthesis
        // fresh: English 17–19 dB, Korean 25 and 33–35 dB).
        Case(language: nil, question: "Can you come to the meeting tomorrow?", line: "<noise 18> No, I can't.", floor: AnswerConfidence(floor: 0.6)),
        Case(language: "ko", question: "내일 회의에 오실 수 있나요?", line: "<noise 25> 네, 갈게요.", floor: AnswerConfidence(floor: 0.15)),
    ]

    /// The call's stored answer with `confidence` as the floor, the agent's lines, and the call's record.
    static func call(_ c: Case, confidence: AnswerConfidence) async throws -> (answer: TaskTracker.Answer, agent: [String], record: String) {
        let (tts, stt) = try #require(CallHarness.speech)
        let engines = CallSystem.localEngines(tts: tts, stt: stt, korean: OfflineKorean(whisperPath: Fixtures.whisper, lanes: 1),
                                              turns: CallHarness.turns, answerConfidence: confidence)
        let run = try await VirtualCallHarness.run(tweak: { $0.retry.enabled = false }, engines: engines) { manager, store, clock in
            var request = CallHarness.seedRequest(answers: [c.line, c.line, c.line], questions: [c.question])
            request.language = c.language
            let id = try await manager.create(request).outboundId
            _ = try await VirtualCallHarness.waitFor(store, id, clock: clock) { $0.state.isTerminal }
            let answer = try #require(try await store.answers(callID: id).first)
            let agent = try await store.transcript(callID: id).map(\.entry).filter { $0.speaker == .ai }.map(\.text)
            return (answer, agent, try await VirtualCallHarness.record(of: id, in: store))
        }
        #expect(run.strayWakeups == 0)
        return run.value
    }

    @Test(.timeLimit(.minutes(5)), arguments: cases)
    func anAnswerHeardUnsurelyIsAskedAgainThenStoredUnclear(_ c: Case) async throws {
        let phrases = DialoguePhrases.of(c.language ?? "en")
        let open = try await Self.call(c, confidence: .off)
        #expect(open.answer.status == .answered, "with the floor off the words are stored as an answer\n\(open.record)")
        let floor = c.floor.floor
        #expect(open.answer.confidence < floor, "scored below the floor\n\(open.record)")

        let gated = try await Self.call(c, confidence: c.floor)
        #expect(gated.answer.status == .unclear && gated.answer.answerSummary == nil, "\(gated.record)")
        #expect(gated.answer.answerText?.isEmpty == false, "what was heard is kept\n\(gated.record)")
        #expect(gated.agent.count { $0.contains(c.question) } == 2, "asked, then asked again\n\(gated.record)")
        #expect(gated.agent.contains { $0.hasPrefix(phrases.notUnderstood) && $0.hasSuffix(c.question) }, "the re-ask says why\n\(gated.record)")
    }
}
