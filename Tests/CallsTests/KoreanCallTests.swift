import Foundation
import Testing
import TestLanes
import TestSupport
@testable import Calls
@testable import Realtime

/// A Korean call and an English one on the same server, side by side in virtual time: the Korean call's
/// agent greets and asks in Korean (espeak-ng's Korean voice), hears the simulated callee's Korean
/// with Whisper base and stores its answers as said, in Korean; the English call beside it runs on
/// Moonshine as always. The Korean persona answers "예" and "네": what Whisper hears reliably from
/// espeak-ng's Korean over a phone line (its "아니요" comes out as "리요" or "네" — docs/guide/offline.md, "What to
/// expect offline").
@Suite(.serialized, .tags(.virtualTime)) struct KoreanCallTests {
    @Test func aKoreanCallAndAnEnglishCallRunSideBySide() async throws {
        let (tts, stt) = try #require(CallHarness.speech)
        let korean = OfflineKorean(whisperPath: Fixtures.whisper, lanes: 1)
        _ = try await VirtualCallHarness.run(tweak: { $0.retry.enabled = false; $0.maxConcurrentCalls = 2 },
                                             engines: CallSystem.localEngines(tts: tts, stt: stt, korean: korean)) { manager, store, clock in
            var request = CallHarness.seedRequest(answers: ["예.", "네."], questions: ["내일 회의에 참석하실 수 있나요?", "저녁 식사도 함께 하시나요?"],
                                                  callee: "010 7100 0001")
            request.purpose = "내일 오후 두 시 회의"
            request.callerDisplayName = "ABC 회사"
            request.language = "ko"
            let koreanID = try await manager.create(request).outboundId
            let englishID = try await manager.create(CallHarness.seedRequest(answers: ["Yes, I can attend.", "No, the original location is fine."],
                                                                             callee: "010 7100 0002")).outboundId

            let call = try await VirtualCallHarness.waitFor(store, koreanID, clock: clock) { $0.state.isTerminal }
            #expect(call.state == .completed && call.language == "ko")
            let answers = try await store.answers(callID: koreanID)
            #expect(answers.map(\.status) == [.answered, .answered], "\(answers.map { ($0.status, $0.answerText ?? "") })")
            #expect(answers.map(\.answerSummary) == ["yes", "yes"])
            for answer in answers {
                #expect(answer.answerText?.unicodeScalars.contains { (0xAC00...0xD7A3).contains($0.value) } == true, "stored as said, in Korean: \(answer.answerText ?? "")")
            }
            let agentLines = try await store.transcript(callID: koreanID).map(\.entry).filter { $0.speaker == .ai }.map(\.text)
            #expect(agentLines.first?.hasPrefix("안녕하세요, ABC 회사의 AI 상담원입니다.") == true, "\(agentLines)")
            #expect(agentLines.last?.hasSuffix("좋은 하루 되세요.") == true, "\(agentLines)")

            let english = try await VirtualCallHarness.waitFor(store, englishID, clock: clock) { $0.state.isTerminal }
            #expect(english.state == .completed && english.language == nil)
            #expect(try await store.answers(callID: englishID).map(\.answerSummary) == ["yes", "no"])
        }
    }

    /// Korean is refused, with the reason, where it cannot run; other languages are refused on the
    /// local engine, and a malformed code anywhere; a template's language is its calls'.
    @Test func aLanguageTheServerCannotHoldIsRefusedWithTheReason() async throws {
        let missing = OfflineKorean(whisperPath: "/nonexistent", lanes: 1)
        #expect(missing.problem()?.contains("make deps") == true)
        var config = VoiceBridgeConfig()
        config.engine.local.whisperPath = "/nonexistent"
        let problem = CallSystem.languageProblem(config.engine)
        #expect(problem("en") == nil && problem("ko")?.contains("make deps") == true && problem("de")?.contains("en and ko") == true)
        // A server whose default language is Korean does not start without Whisper.
        config.engine.language = "ko"
        config.engine.local.moonshinePath = Fixtures.moonshine
        #expect { _ = try CallSystem.engines(for: config.engine, egress: config.egressPolicy) } throws: { "\($0)".contains("engine.language ko") && "\($0)".contains("make deps") }
        // A template's language is its calls' unless a call names its own.
        let template = CallTemplate(name: "k", purpose: "회의", questions: ["참석하실 수 있나요?"], language: "ko")
        #expect(try CallHarness.seedRequest().applying(template).language == "ko")
        var english = CallHarness.seedRequest()
        english.language = "en"
        #expect(try english.applying(template).language == "en")
        var request = CallHarness.seedRequest()
        request.language = "Korean"
        #expect(throws: ValidationError.self) { try request.validated(maxCallDuration: 300, allowedCallerIDs: []) }
    }
}
