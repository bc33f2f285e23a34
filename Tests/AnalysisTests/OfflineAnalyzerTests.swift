import Flows
import Testing
import Tools
@testable import Analysis

func json(_ text: String) -> JSONValue { try! JSONValue.parse(text) }

@Suite struct OfflineAnalyzerTests {
    static let schema = json(#"{"type": "object", "properties": {"attending": {"type": "boolean"}, "guests": {"type": "integer"}, "meal": {"type": "string"}, "budget": {"type": ["number", "null"]}}}"#)

    static func input(outcome: String? = "registered", customer: [String] = ["Yes, great, thank you."]) -> AnalysisInput {
        AnalysisInput(purpose: "the open day", transcript: [.init(speaker: "ai", text: "Will you come? It is terrible weather.")] + customer.map { .init(speaker: "customer", text: $0) },
                      answers: [.init(id: "attending", question: "Will you come?", status: "answered", answer: "yes"),
                                .init(id: "guests", question: "How many?", status: "answered", answer: "25"),
                                .init(id: "meal", question: "Fish or pasta?", status: "not_asked", answer: nil)],
                      fields: ["attending": .init(kind: .yesNo, status: .answered, answer: "yes"), "guests": .init(kind: .number, status: .answered, answer: "25")],
                      outcome: outcome, flowOutcomes: ["registered", "declined"], taskCompleted: outcome != nil)
    }

    @Test func fillsTheSchemaFromTheFieldsAndJudgesByCompletion() {
        let analysis = OfflineAnalyzer.analyze(AnalysisSpec(schema: Self.schema, success: "the callee registered"), Self.input())
        #expect(analysis.method == .offline)
        #expect(analysis.data == .object(["attending": .bool(true), "guests": .integer(25), "meal": .null, "budget": .null]))
        #expect(analysis.success && analysis.reason == "the flow reached its end 'registered'" && analysis.category == "registered")
        #expect(analysis.sentiment == .positive, "only the callee's words count (the agent said 'terrible')")

        let unfinished = OfflineAnalyzer.analyze(AnalysisSpec(sentiment: false), Self.input(outcome: nil))
        #expect(!unfinished.success && unfinished.reason == "the call ended before the flow reached an end")
        #expect(unfinished.category == "incomplete" && unfinished.sentiment == nil && unfinished.data == .object([:]))

        let questions = AnalysisInput(purpose: "p", transcript: [], answers: [.init(id: "q1", question: "A?", status: "answered", answer: "no"),
                                                                             .init(id: "q2", question: "B?", status: "refused", answer: nil)], taskCompleted: false)
        let plain = OfflineAnalyzer.analyze(AnalysisSpec(), questions)
        #expect(plain.reason == "1 of 2 questions answered, 1 refused" && plain.category == "partial" && plain.sentiment == .neutral)
    }

    @Test(arguments: [
        ("That's great, thanks a lot.", CallAnalysis.Sentiment.positive),
        ("This is not good at all, I'm annoyed.", .negative),
        ("Not bad, actually.", .positive),
        ("I'm at home on Tuesday.", .neutral),
        ("네, 감사합니다. 좋아요.", .positive),
        ("짜증나네요. 다시는 전화하지 마세요.", .negative),
    ])
    func theLexiconReadsEnglishAndKorean(text: String, expected: CallAnalysis.Sentiment) {
        #expect(SentimentLexicon.sentiment(of: [text]) == expected)
    }

    @Test func aSpecIsCheckedWithItsSchema() {
        #expect(AnalysisSpec(schema: json(#"{"type": "object", "oneOf": []}"#)).problems().map(\.field) == ["analysis.schema.oneOf"])
        #expect(AnalysisSpec(schema: json(#"{"type": "string"}"#), success: " ", categories: []).problems().map(\.field)
                == ["analysis.schema", "analysis.success", "analysis.categories"])
        #expect(AnalysisSpec(schema: Self.schema, success: "booked").problems().isEmpty)
    }
}
