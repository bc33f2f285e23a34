import Testing
@testable import Flows

@Suite struct FlowWalkerTests {
    @Test func theAnswersChooseThePath() throws {
        var walker = FlowWalker(flow: try decodeFlow(seminarFlow))
        #expect(walker.begin() == .ask(step: "attend", said: []))
        walker.record("attending", FlowFieldValue(kind: .yesNo, status: .answered, answer: "yes"))
        #expect(walker.next(after: "attend") == .ask(step: "guests", said: []))
        walker.record("guests", FlowFieldValue(kind: .number, status: .answered, answer: "6"))
        #expect(walker.next(after: "guests") == .end(step: "booked", said: ["For five or more we will reserve a table."]))
        #expect(walker.path == ["attend", "route", "guests", "size", "big_group", "booked"])
        #expect(walker.outcome == "registered")

        var declining = FlowWalker(flow: try decodeFlow(seminarFlow))
        _ = declining.begin()
        declining.record("attending", FlowFieldValue(kind: .yesNo, status: .answered, answer: "no"))
        #expect(declining.next(after: "attend") == .end(step: "declined", said: ["That's a pity."]))
        #expect(declining.outcome == "declined")

        var refusing = FlowWalker(flow: try decodeFlow(seminarFlow))
        _ = refusing.begin()
        refusing.record("attending", FlowFieldValue(kind: .yesNo, status: .refused))
        #expect(refusing.next(after: "attend") == .end(step: "polite_end", said: []))
        #expect(refusing.fields["attending"]?.typedValue == nil)
    }

    @Test func aFieldAnsweredUnpromptedIsNotAskedAgain() throws {
        var walker = FlowWalker(flow: try decodeFlow(seminarFlow))
        _ = walker.begin()
        walker.record("attending", FlowFieldValue(kind: .yesNo, status: .answered, answer: "yes"))
        walker.record("guests", FlowFieldValue(kind: .number, status: .answered, answer: "2"))
        #expect(walker.next(after: "attend") == .end(step: "booked", said: []))
        #expect(walker.path == ["attend", "route", "guests", "size", "booked"])
    }

    @Test func aBoundedLoopLeavesAfterItsLimit() throws {
        let flow = try decodeFlow("""
            {"start": "more", "steps": [
              {"id": "more", "ask": "Anything else?", "field": "more", "kind": "yes_no", "next": "check", "max_visits": 2, "after_limit": "done"},
              {"id": "check", "branch": [{"field": "more", "is": "yes", "next": "more"}], "default": "done"},
              {"id": "done", "outcome": "ok"}
            ]}
            """)
        var walker = FlowWalker(flow: flow)
        #expect(walker.begin() == .ask(step: "more", said: []))
        walker.record("more", FlowFieldValue(kind: .yesNo, status: .answered, answer: "yes"))
        #expect(walker.next(after: "more") == .ask(step: "more", said: []))
        #expect(walker.next(after: "more") == .end(step: "done", said: []))
        #expect(walker.path == ["more", "check", "more", "check", "done"])
    }

    @Test func conditionsCompareAsTheirValuesAre() {
        let fields = ["n": FlowFieldValue(kind: .number, status: .answered, answer: "50 USD"),
                      "c": FlowFieldValue(kind: .choice, status: .answered, answer: "Red"),
                      "u": FlowFieldValue(kind: .freeText, status: .unclear)]
        #expect(FlowCondition(field: "n", min: 10, max: 50, next: "x").holds(in: fields))
        #expect(!FlowCondition(field: "n", max: 49.5, next: "x").holds(in: fields))
        #expect(FlowCondition(field: "n", equals: "50", next: "x").holds(in: fields))
        #expect(FlowCondition(field: "c", oneOf: ["blue", "red"], next: "x").holds(in: fields))
        #expect(FlowCondition(field: "u", is: .empty, next: "x").holds(in: fields))
        #expect(FlowCondition(field: "never", is: .empty, next: "x").holds(in: fields))
        #expect(!FlowCondition(field: "u", is: .answered, next: "x").holds(in: fields))
        #expect(fields["n"]?.typedValue as? String == "50 USD")
        #expect(FlowFieldValue(kind: .number, status: .answered, answer: "3").typedValue as? Int == 3)
    }
}

/// Tool steps: the walker stops for the server to run the tool, then goes on with its answer.
@Suite struct FlowToolStepTests {
    static let flow = """
        {"start": "guests", "steps": [
          {"id": "guests", "ask": "How many?", "field": "guests", "kind": "number", "next": "check"},
          {"id": "check", "say": "Let me check.", "next": "seats"},
          {"id": "seats", "tool": "check_seats", "arguments": {"count": "{guests}", "note": "for {guests} people"},
           "results": {"available": "available"}, "next": "route", "on_error": "desk"},
          {"id": "route", "branch": [{"field": "available", "is": "yes", "next": "booked"}], "default": "full"},
          {"id": "booked", "outcome": "booked"},
          {"id": "full", "outcome": "full"},
          {"id": "desk", "outcome": "callback"}
        ]}
        """

    @Test func theWalkerStopsForTheToolAndBranchesOnItsAnswer() throws {
        let flow = try decodeFlow(Self.flow)
        #expect(flow.problems() == [])
        var walker = FlowWalker(flow: flow)
        _ = walker.begin()
        walker.record("guests", FlowFieldValue(kind: .number, status: .answered, answer: "4"))
        #expect(walker.next(after: "guests") == .tool(step: "seats", said: ["Let me check."]))
        var failing = walker
        #expect(walker.toolFinished("seats", fields: ["available": FlowFieldValue(kind: .yesNo, status: .answered, answer: "no")], failed: false)
                == .end(step: "full", said: []))
        #expect(walker.outcome == "full" && walker.path == ["guests", "check", "seats", "route", "full"])
        #expect(failing.toolFinished("seats", fields: [:], failed: true) == .end(step: "desk", said: []), "on_error")
    }

    @Test func toolStepsAreChecked() throws {
        let flow = try decodeFlow("""
            {"start": "seats", "steps": [
              {"id": "seats", "tool": "check_seats", "arguments": {"count": "{guests}"}, "results": {"guests": "n"}},
              {"id": "ask", "ask": "How many?", "field": "guests", "kind": "number", "next": "done"},
              {"id": "done", "outcome": "ok"}
            ]}
            """)
        #expect(Set(flow.problems().map(\.description)) == [
            "flow.start: a flow begins by speaking to the callee: put the tool step after the first ask",
            "flow.steps.seats.next: is required: the step after the tool answered",
            "flow.steps.seats.results.guests: 'guests' is asked by step 'ask': a field is filled in one place",
        ])
        let early = try decodeFlow("""
            {"start": "hello", "steps": [
              {"id": "hello", "say": "Hello!", "next": "look"},
              {"id": "look", "tool": "lookup", "next": "ask"},
              {"id": "ask", "ask": "Ready?", "field": "ready", "kind": "yes_no", "next": "done"},
              {"id": "done", "outcome": "ok"}
            ]}
            """)
        #expect(early.problems().map(\.description) == ["flow.steps.look.tool: a flow begins by speaking to the callee: put the tool step after the first ask"])
        let unknown = try decodeFlow(Self.flow.replacingOccurrences(of: "for {guests} people", with: "for {party} people"))
        #expect(unknown.problems().map(\.description) == ["flow.steps.seats.arguments.note: no step fills 'party'"])
    }
}
