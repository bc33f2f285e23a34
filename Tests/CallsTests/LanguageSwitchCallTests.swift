import Dialogue
import Foundation
import Testing
import TestLanes
import TestSupport
@testable import Calls
@testable import Realtime

/// A Korean call whose callee answers in English (a template's `languages` and `translations`),
/// whole, in virtual time: Whisper hears the English as English, the agent goes on in English —
/// the translated question, its own words, the English closing in the English voice — and the
/// answers are stored as said, under the operator's Korean questions.
@Suite(.serialized, .tags(.virtualTime)) struct LanguageSwitchCallTests {
    @Test func aKoreanCallAnsweredInEnglishGoesOnInEnglish() async throws {
        let (tts, stt) = try #require(CallHarness.speech)
        let korean = OfflineKorean(whisperPath: Fixtures.whisper, lanes: 1)
        let store = try CallStore(path: StoreBackend.temporarySQLitePath())
        try await store.webhooks.create(WebhookEndpoint(url: "http://127.0.0.1:9/all"))
        _ = try await VirtualCallHarness.run(store: store, tweak: { $0.retry.enabled = false },
                                             engines: CallSystem.localEngines(tts: tts, stt: stt, korean: korean)) { manager, store, clock in
            var template = CallTemplate(name: "check-up", purpose: "정기 점검 예약", questions: ["목요일 오전에 방문하실 수 있나요?", "몇 분이 오시나요?"], language: "ko")
            template.languages = ["en"]
            template.translations = ["en": ConversationTranslation(purpose: "your regular check-up", questions: ["Can you come on Thursday morning?", "How many of you are coming?"])]
            _ = try await store.createTemplate(template)
            var request = CallHarness.seedRequest(answers: ["Yes, I can come on Thursday.", "Two of us."], questions: [], callee: "010 7100 0003")
            request.template = "check-up"
            request.callerDisplayName = "ABC 회사"
            request.purpose = template.purpose
            let id = try await manager.create(request).outboundId
            let call = try await VirtualCallHarness.waitFor(store, id, clock: clock) { $0.state.isTerminal }
            let lines = try await store.transcript(callID: id).map(\.entry)
            let said = lines.map { "\($0.speaker): \($0.text)" }
            #expect(call.state == .completed && call.language == "ko", "\(said)")
            let answers = try await store.answers(callID: id)
            #expect(answers.map(\.status) == [.answered, .answered], "\(said)")
            #expect(answers.map(\.answerSummary) == ["yes", "2"], "\(said)")
            #expect(answers.map(\.question) == template.questions, "the operator's questions")
            #expect(answers.first?.answerText?.lowercased().contains("thursday") == true, "as said: \(said)")
            let agent = lines.filter { $0.speaker == .ai }.map(\.text)
            #expect(agent.first?.hasPrefix("안녕하세요, ABC 회사의 AI 상담원입니다.") == true, "\(said)")
            #expect(agent.dropFirst().first == "Thank you. How many of you are coming?", "\(said)")
            #expect(agent.last?.hasSuffix(DialoguePhrases.english.closing) == true, "\(said)")
            #expect(call.summary?.contains("ko → en") == true, "\(call.summary ?? "")")
            #expect(call.languagesSpoken == ["ko", "en"], "the language to call back in is stored: \(call.languagesSpoken ?? [])")
            let announced = try #require(try await store.webhooks.deliveries(callID: id).first).payload
            let data = (try JSONSerialization.jsonObject(with: Data(announced.utf8)) as? [String: Any])?["data"] as? [String: Any]
            #expect(data?["languages_spoken"] as? [String] == ["ko", "en"], "and announced: \(announced)")
        }
    }
}
