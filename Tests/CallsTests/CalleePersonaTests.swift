import Dialogue
import Foundation
import Personas
import Testing
@testable import Calls
@testable import Simulation
@testable import Realtime

/// Every persona of the catalogue through the local dialogue, its script read as the simulated
/// callee would say it: every status and normalised answer must be the expected one. (The same
/// catalogue over real calls, with speech synthesis and recognition in between, is `make bench`'s
/// persona figure; the SIP outcomes — busy, rejected, no answer — are in `PersonaCallTests`.)
@Suite struct CalleePersonaTests {
    static let now = Date()

    @Test func theCatalogueCoversWhatTheIssueAsksFor() {
        #expect(CalleePersona.catalogue.count >= 30)
        #expect(Set(CalleePersona.catalogue.map(\.name)).count == CalleePersona.catalogue.count, "names are unique")
        for persona in CalleePersona.catalogue { #expect(persona.expected.count == persona.questions.count, "\(persona.name)") }
    }

    /// The comparison the tests and `make bench` share names every difference.
    @Test func aComparisonNamesWhatDiffered() throws {
        let cooperative = try #require(CalleePersona.catalogue.first { $0.name == "cooperative" })
        let neverAnswered = cooperative.compare(state: .busy, answers: [], now: Self.now)
        #expect(!neverAnswered.stateMatches && neverAnswered.statuses == (0, 2) && neverAnswered.summaries == (0, 2) && neverAnswered.answered == (0, 0))
        #expect(neverAnswered.mismatches.first == "state busy, expected completed" && neverAnswered.mismatches.count == 5, "\(neverAnswered.mismatches)")
        var answers = Self.converse(cooperative)
        answers[1].answerSummary = "yes"
        let oneWrong = cooperative.compare(state: .completed, answers: answers, now: Self.now)
        #expect(oneWrong.statuses == (2, 2) && oneWrong.summaries == (1, 2) && oneWrong.mismatches.count == 1, "\(oneWrong.mismatches)")
        #expect(oneWrong.answered == (wrong: 1, total: 2), "the wrong summary is an answer an operator would act on wrongly")
        answers[1].status = .unclear
        let leftUnclear = cooperative.compare(state: .completed, answers: answers, now: Self.now)
        #expect(leftUnclear.answered == (wrong: 0, total: 1), "an answer left unclear is not a wrong answer stored")
    }

    /// The held-out personas are for reporting only: well formed, and none of their lines is a
    /// tuning persona's (so a figure on them is on speech nothing was tuned to).
    @Test func theHeldOutPersonasShareNoLineWithTheTuningOnes() {
        let tuning = Set((CalleePersona.catalogue + CalleePersona.korean).flatMap(\.script))
        let englishSets = [CalleePersona.heldOut, CalleePersona.secondHeldOut, CalleePersona.thirdHeldOut, CalleePersona.fourthHeldOut,
                           CalleePersona.fifthHeldOut, CalleePersona.sixthHeldOut, CalleePersona.seventhHeldOut, CalleePersona.eighthHeldOut,
                           CalleePersona.ninthHeldOut]
        for persona in englishSets.joined() + CalleePersona.koreanHeldOut {
            #expect(persona.expected.count == persona.questions.count, "\(persona.name)")
            let shared = persona.script.filter { tuning.contains($0) && !$0.hasPrefix("<") }
            #expect(shared.isEmpty, "\(persona.name) says what a tuning persona says: \(shared)")
        }
        #expect(CalleePersona.koreanHeldOut.count >= 8)
        // Each later set was written after the ones before had been tuned on: it shares none of their lines either.
        for (index, set) in englishSets.enumerated() {
            let said = Set(englishSets[..<index].joined().flatMap(\.script))
            for persona in set {
                let shared = persona.script.filter { said.contains($0) && !$0.hasPrefix("<") }
                #expect(shared.isEmpty, "\(persona.name) says what an earlier held-out persona says: \(shared)")
            }
            #expect(set.count >= 15)
        }
    }

    @Test(arguments: CalleePersona.catalogue.filter { $0.state == .completed }.map(\.name))
    func personaGetsTheRightResult(name: String) throws {
        let persona = try #require(CalleePersona.catalogue.first { $0.name == name })
        let answers = Self.converse(persona)
        #expect(answers.count == persona.questions.count)
        let comparison = persona.compare(state: nil, answers: answers, now: Self.now)
        #expect(comparison.mismatches.isEmpty, "\(name): \(comparison.mismatches)")
    }

    /// The dialogue (reading back as the server's default has it) against the simulated callee's
    /// side of the conversation with perfect ears: each agent utterance gets what `CalleeConversation`
    /// says to it — the next line, a confirmation, a repeat; `<silence>` (or an exhausted script)
    /// is a reply that never comes, `<hangup>` ends the call there.
    static func converse(_ persona: CalleePersona) -> [TaskTracker.Answer] {
        var context = ConversationContext(purpose: "a test", questions: persona.questions, displayName: "ABC")
        context.readBack = ReadBack.defaultKinds
        var dialogue = ScriptedDialogue(context: context, now: now)
        var callee = CalleeConversation(script: persona.script, now: now)
        var step = dialogue.start()
        while case .ask(let text, _) = step {
            guard case .line(let line, let prefix, _) = callee.reply(toAgent: text) else { step = dialogue.noReply(); continue }
            switch line.action {
            case .hangUp: return dialogue.tracker.finalAnswers
            case .silence: step = dialogue.noReply()
            case .say: step = dialogue.caller(said: [prefix, line.words].filter { !$0.isEmpty }.joined(separator: " "))
            }
        }
        return dialogue.tracker.finalAnswers
    }
}
