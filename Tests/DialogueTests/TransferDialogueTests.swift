import Testing
@testable import Dialogue

/// The local dialogue and a caller who asks for a person.
@Suite struct TransferDialogueTests {
    static func dialogue(target: String?, language: String = "en") -> ScriptedDialogue {
        var context = ConversationContext(purpose: "the meeting", questions: ["Can you attend?"], displayName: "ABC", language: language)
        context.transferTarget = target
        var dialogue = ScriptedDialogue(context: context)
        _ = dialogue.start()
        return dialogue
    }

    @Test func askingForAPersonTransfersWhenSomeoneIsThere() {
        for reply in ["Can I speak to a person, please?", "I want to talk to a human", "Get me an operator.", "상담원 연결해 주세요", "상담원이랑 통화할래요"] {
            var d = Self.dialogue(target: "+15550100099", language: reply.first!.isASCII ? "en" : "ko")
            guard case .transfer(_, let reason) = d.caller(said: reply) else { Issue.record("\(reply): no transfer"); continue }
            #expect(reason == "the caller asked for a person")
        }
    }

    @Test func withNobodyToTransferToTheQuestionIsAskedAgain() {
        var d = Self.dialogue(target: nil)
        #expect(d.caller(said: "Can I speak to a person?") == .ask(text: "I'm sorry, I cannot connect you to a person on this call. Can you attend?", questionIndex: 0))
    }

    @Test func aTransferThatReachedNobodyPutsTheQuestionAgain() {
        var d = Self.dialogue(target: "+15550100099")
        _ = d.caller(said: "Can I speak to a person?")
        #expect(d.transferEnded(.busy) == .ask(text: "I'm sorry, everyone is busy right now. Let's continue. Can you attend?", questionIndex: 0))
        // An ordinary answer is not a request for a person.
        var plain = Self.dialogue(target: "+15550100099")
        guard case .close = plain.caller(said: "Yes, I can attend.") else { Issue.record("a plain yes answers"); return }
    }
}
