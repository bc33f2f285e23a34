import Foundation
import Knowledge
import Testing
import TestLanes
import TestSupport
@testable import Calls
@testable import Realtime

/// Offline, a whole call in virtual time: the simulated callee asks a FAQ question (espeak-ng →
/// Moonshine), the local engine finds the answer in the call's collection and says it, then asks
/// its own question again; a question the FAQ cannot answer is passed on and kept in the result.
/// Then the loop an operator closes: the question passed on is listed, the operator answers it,
/// and the next call's agent answers it.
@Suite(.serialized, .tags(.virtualTime)) struct KnowledgeCallTests {
    @Test func theCalleeAsksAFAQQuestionAndHearsTheAnswer() async throws {
        let store = try CallStore(path: StoreBackend.temporarySQLitePath())
        let faq = """
            question,answer
            What are your opening hours?,"We are open Monday to Friday from nine to six, and on Saturday from nine to one."
            Is there parking at the clinic?,There are twenty parking spaces behind the building.
            """
        try await store.knowledge.replace(collection: "clinic", documents: [try KnowledgeDocument.parse(name: "faq.csv", bytes: Array(faq.utf8), sha256: "x")])
        let (tts, stt) = try #require(CallHarness.speech)
        try #require(OTLPReceiver.isInstalled, "opentelemetry-proto is missing (make deps)")
        let receiver = try await OTLPReceiver()
        defer { receiver.stop() }
        let traced = try await OTLPReceiver.withTracing(endpoint: receiver.tracesURL) { tracing in
            let searches = try await VirtualCallHarness.run(store: store, tweak: { $0.retry.enabled = false; $0.tracer = tracing.tracer },
                                             engines: CallSystem.localEngines(tts: tts, stt: stt, knowledge: store.knowledge)) { manager, store, clock in
                var request = CallHarness.seedRequest(answers: ["What time do you open on Saturday?", "Do you sell gift cards?", "Yes, I can attend."],
                                                      questions: ["Can you attend the appointment on Thursday?"])
                request.knowledge = ["clinic"]
                let id = try await manager.create(request).outboundId
                let call = try await VirtualCallHarness.waitFor(store, id, clock: clock) { $0.state.isTerminal }
                let transcript = try await store.transcript(callID: id)
                let said = transcript.filter { $0.entry.speaker == .ai }.map(\.entry.text)
                #expect(call.state == .completed, "\(said)")
                #expect(said.contains { $0.hasPrefix("We are open Monday to Friday from nine to six, and on Saturday from nine to one. Now, Can you attend") },
                        "the FAQ's answer, then the question again: \(said)")
                #expect(said.contains { $0.hasPrefix("[tool search_knowledge") && $0.contains("→ ok") })
                #expect(said.contains { $0.hasPrefix("I'm sorry, I don't have that information, but I will pass your question on.") }, "\(said)")
                #expect(try await store.answers(callID: id).first?.status == .answered)
                let summary = try await store.call(id: id)?.summary ?? ""
                // What Moonshine hears of espeak's "Do you sell gift cards?" varies ("Who you fell gift-card?",
                // "Who you tell give the card?"): the open question kept must be what the caller's line was heard
                // as — the customer line the agent answered with "I'm sorry, …".
                let lines = transcript.map(\.entry)
                let passedOn = lines.indices.dropFirst().first { lines[$0].speaker == .ai && lines[$0].text.hasPrefix("I'm sorry, I don't have that information") }
                let heard = passedOn.flatMap { index in lines[..<index].last { $0.speaker == .customer }?.text }
                #expect(heard.map { summary.contains("Open questions to answer: \"\($0)\"") } == true, "\(String(describing: heard)) in \(summary)")
                return (id: id, count: said.filter { $0.hasPrefix("[tool search_knowledge") }.count, asked: lines.filter { $0.speaker == .customer }.map(\.text))
            }.value
            let spans = try await receiver.spans { spans in
                spans.contains { $0.name == "call" } && spans.filter { $0.name == "execute_tool search_knowledge" }.count >= searches.count
            }
            return (searches, spans)
        }
        // Each search is a span of the call's trace (as a model engine's `search_knowledge` call
        // is), and no span carries what the caller asked.
        let ((id, count, asked), spans) = traced
        let call = try #require(spans.first { $0.name == "call" && $0.attributes["voicebridge.call.id"] as? String == id })
        let found = spans.filter { $0.name == "execute_tool search_knowledge" }
        #expect(count >= 2 && found.count == count, "\(found.count) spans for \(count) searches")
        #expect(found.allSatisfy { $0.parentSpanID == call.spanID && $0.start >= call.start && $0.end <= call.end
            && $0.attributes["gen_ai.tool.name"] as? String == "search_knowledge" && $0.attributes["voicebridge.tool.status"] as? String == "ok" }, "\(found)")
        let values = spans.flatMap { $0.attributes.values.map { "\($0)" } }
        #expect(!values.contains { value in asked.contains { !$0.isEmpty && value.contains($0) } }, "no caller's words in a span")
    }

    @Test func aQuestionPassedOnIsAnsweredOnTheNextCallOnceTheOperatorAnswersIt() async throws {
        let store = try CallStore(path: StoreBackend.temporarySQLitePath())
        let faq = "question,answer\nIs there parking at the clinic?,There are twenty parking spaces behind the building.\n"
        try await store.knowledge.replace(collection: "clinic", documents: [try KnowledgeDocument.parse(name: "faq.csv", bytes: Array(faq.utf8), sha256: "x")])
        let (tts, stt) = try #require(CallHarness.speech)
        let answer = "Yes, gift cards of any amount are sold at the front desk."
        _ = try await VirtualCallHarness.run(store: store, tweak: { $0.retry.enabled = false },
                                             engines: CallSystem.localEngines(tts: tts, stt: stt, knowledge: store.knowledge)) { manager, store, clock in
            func call(_ callee: String) async throws -> (id: String, said: [String]) {
                var request = CallHarness.seedRequest(answers: ["Do you sell gift cards?", "Yes, I can attend."],
                                                      questions: ["Can you attend the appointment on Thursday?"], callee: callee)
                request.knowledge = ["clinic"]
                let id = try await manager.create(request).outboundId
                let ended = try await VirtualCallHarness.waitFor(store, id, clock: clock) { $0.state.isTerminal }
                #expect(ended.state == .completed)
                return (id, try await store.transcript(callID: id).filter { $0.entry.speaker == .ai }.map(\.entry.text))
            }
            let first = try await call("010 9876 5432")
            #expect(first.said.contains { $0.hasPrefix("I'm sorry, I don't have that information, but I will pass your question on.") }, "\(first.said)")
            let open = try await store.knowledgeQuestions.open(askedWithin: 7)
            #expect(open.questions.count == 1 && open.questions.first?.callID == first.id && open.questions.first?.collections == ["clinic"])
            let asked = try #require(open.questions.first)

            // The operator answers it as the dashboard offers: the question as it was heard, their answer.
            let knowledge = KnowledgeBase(store: store.knowledge, embedder: nil)
            let stored = try await knowledge.answer(questionIDs: [asked.id], collection: "clinic", question: asked.question, with: .text(answer))
            #expect(stored.resolved == 1)

            let second = try await call("010 9876 5433")
            #expect(second.said.contains { $0.hasPrefix(answer + " Now, Can you attend") }, "the operator's answer, then the question again: \(second.said)")
            #expect(!second.said.contains { $0.hasPrefix("I'm sorry, I don't have that information") }, "\(second.said)")
            #expect(try await store.knowledgeQuestions.open(askedWithin: 7).questions.isEmpty, "nothing new passed on")
        }
    }
}
