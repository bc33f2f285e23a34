import Flows
import Foundation
import Testing
import Tools
@testable import Dialogue

/// The local dialogue running a flow: the answers choose the path, exactly as written.
@Suite struct FlowDialogueTests {
    static let flow = """
        {"start": "attend", "steps": [
          {"id": "attend", "ask": "Will you attend the seminar on Friday?", "field": "attending", "kind": "yes_no", "next": "route"},
          {"id": "route", "branch": [{"field": "attending", "is": "yes", "next": "guests"}], "default": "sorry"},
          {"id": "guests", "ask": "How many people will come?", "field": "guests", "kind": "number", "next": "size"},
          {"id": "size", "branch": [{"field": "guests", "min": 5, "next": "big_group"}], "default": "meal"},
          {"id": "big_group", "say": "For five or more we will reserve a table.", "next": "meal"},
          {"id": "meal", "ask": "Would you like the fish or the vegetarian menu?", "field": "meal", "kind": "choice",
           "choices": ["fish", "vegetarian"], "next": "booked"},
          {"id": "booked", "end": "Thank you, see you on Friday.", "outcome": "registered"},
          {"id": "sorry", "say": "That's a pity.", "next": "desk"},
          {"id": "desk", "transfer": "Let me put you through to our desk to find another date.", "next": "declined"},
          {"id": "declined", "end": "Thank you for letting us know.", "outcome": "declined"}
        ]}
        """

    static func context() throws -> ConversationContext {
        let flow = try JSONDecoder().decode(Flow.self, from: Data(Self.flow.utf8))
        #expect(flow.problems() == [])
        var context = ConversationContext(purpose: "the seminar", questions: flow.asks.compactMap(\.ask), displayName: "ABC")
        context.flow = flow
        return context
    }

    @Test func theAnswersChooseThePathAndFillTheFields() throws {
        var d = ScriptedDialogue(context: try Self.context())
        #expect(d.start() == .ask(text: "Hello, this is the AI assistant of ABC, calling about the seminar. Will you attend the seminar on Friday?", questionIndex: 0))
        #expect(d.caller(said: "Yes, I will.") == .ask(text: "Thank you. How many people will come?", questionIndex: 1))
        #expect(d.caller(said: "We are six.") == .ask(text: "Thank you. For five or more we will reserve a table. Would you like the fish or the vegetarian menu?", questionIndex: 2))
        #expect(d.caller(said: "Hmm, something with meat?") == .ask(text: "Sorry, I didn't quite get that. Would you like the fish or the vegetarian menu?", questionIndex: 2))
        #expect(d.caller(said: "The vegetarian one, please.") == .close(text: "Thank you, see you on Friday."))
        let result = ConversationResult(tracker: d.tracker, transcript: [], durationSeconds: 30, context: try Self.context())
        #expect(result.outcome == "registered" && result.taskCompleted)
        #expect(result.flowPath == ["attend", "route", "guests", "size", "big_group", "meal", "booked"])
        #expect(result.fields?["guests"] == FlowFieldValue(kind: .number, status: .answered, answer: "6"))
        #expect(result.fields?["meal"]?.answer == "vegetarian")
        #expect(result.answers.map(\.questionID) == ["attending", "guests", "meal"])
        #expect(result.summary.hasSuffix("Outcome: registered."))
    }

    @Test func aNoLeadsToTheTransferAndBackIntoTheFlowWhenNobodyTakesIt() throws {
        var d = ScriptedDialogue(context: try Self.context())
        _ = d.start()
        #expect(d.caller(said: "No, I can't make it.") == .transfer(text: "Thank you. That's a pity. Let me put you through to our desk to find another date.", reason: "the flow's step 'desk'"))
        guard case .close(let text) = d.transferEnded(.noAnswer) else { Issue.record("the flow should end"); return }
        #expect(text.hasSuffix("Thank you for letting us know."))
        #expect(d.tracker.flow?.outcome == "declined")
        let result = ConversationResult(tracker: d.tracker, transcript: [], durationSeconds: 30, context: try Self.context())
        #expect(result.answers.map(\.status) == [.answered, .notAsked, .notAsked])
        #expect(!result.summary.contains("How many people"), "questions the branch skipped are not in the summary")
    }

    @Test func aRefusalIsAFieldStateTheFlowCanBranchOn() throws {
        var refusing = ScriptedDialogue(context: try Self.context())
        _ = refusing.start()
        #expect(refusing.caller(said: "I'd rather not say.") == .transfer(text: "That's all right. That's a pity. Let me put you through to our desk to find another date.", reason: "the flow's step 'desk'"))
        #expect(refusing.tracker.flow?.fields["attending"] == FlowFieldValue(kind: .yesNo, status: .refused))
    }

    @Test func aToolStepRunsWithTheFieldsAndItsAnswerChoosesThePath() throws {
        let flow = try JSONDecoder().decode(Flow.self, from: Data(FlowToolStepTestsData.flow.utf8))
        var context = ConversationContext(purpose: "the dinner", questions: flow.asks.compactMap(\.ask), displayName: "ABC")
        context.flow = flow
        context.tools = [ToolDefinition(name: "check_seats", description: "Free seats.", parameters: try JSONValue.parse(#"{"type":"object","properties":{"count":{"type":"integer"},"note":{"type":"string"}}}"#),
                                        url: "http://127.0.0.1:9/seats")]
        var d = ScriptedDialogue(context: context)
        _ = d.start()
        #expect(d.caller(said: "Four of us.") == .runTool(text: "Thank you. Let me check."))
        let call = try #require(d.pendingTool())
        #expect(call.tool.name == "check_seats" && call.arguments == #"{"count":4,"note":"for 4 people"}"#)
        let answered = ToolRunner.Outcome(answer: #"{"available":true}"#, record: ToolCallRecord(tool: "check_seats", arguments: call.arguments, status: .ok, milliseconds: 3))
        #expect(d.toolFinished(answered) == .close(text: "You are booked."))
        #expect(d.tracker.flow?.fields["available"] == FlowFieldValue(kind: .yesNo, status: .answered, answer: "yes"))
        #expect(d.tracker.flow?.outcome == "booked")
    }
}

enum FlowToolStepTestsData {
    static let flow = """
        {"start": "guests", "steps": [
          {"id": "guests", "ask": "How many people?", "field": "guests", "kind": "number", "next": "check"},
          {"id": "check", "say": "Let me check.", "next": "seats"},
          {"id": "seats", "tool": "check_seats", "arguments": {"count": "{guests}", "note": "for {guests} people"},
           "results": {"available": "available"}, "next": "route", "on_error": "desk"},
          {"id": "route", "branch": [{"field": "available", "is": "yes", "next": "booked"}], "default": "full"},
          {"id": "booked", "end": "You are booked.", "outcome": "booked"},
          {"id": "full", "end": "We are full.", "outcome": "full"},
          {"id": "desk", "end": "We will call you back.", "outcome": "callback"}
        ]}
        """
}
