import Testing
import Tools
@testable import Analysis

@Suite struct AnalysisRequestTests {
    static let spec = AnalysisSpec(schema: OfflineAnalyzerTests.schema, success: "the callee registered")

    @Test func theRequestAsksForStructuredOutputWithTheCallInIt() {
        let body = AnalysisRequest.body(Self.spec, OfflineAnalyzerTests.input(), model: "gpt-4o-mini")
        #expect(body["model"] == .string("gpt-4o-mini"))
        #expect(body["response_format"]?["type"] == .string("json_schema"))
        let schema = body["response_format"]?["json_schema"]?["schema"]
        #expect(schema?["properties"]?["data"] == OfflineAnalyzerTests.schema)
        #expect(schema?["properties"]?["category"]?["enum"] == json(#"["registered", "declined", "incomplete"]"#))
        #expect(schema?["required"] == json(#"["data", "success", "reason", "category", "sentiment"]"#))
        let messages = body["messages"]?.arrayValue ?? []
        #expect(messages.first?["content"]?.stringValue?.contains("Success means: the callee registered.") == true)
        #expect(messages.last?["content"]?.stringValue?.contains("Callee: Yes, great, thank you.") == true)
        #expect(messages.last?["content"]?.stringValue?.contains("- How many? → answered: 25") == true)
    }

    @Test func anAnswerIsBelievedOnlyWhenItFitsTheSchema() throws {
        func answer(_ content: String) -> JSONValue { .object(["choices": .array([.object(["message": .object(["role": .string("assistant"), "content": .string(content)])])])]) }
        let good = #"{"data":{"attending":true,"guests":25,"meal":null,"budget":null},"success":true,"reason":"registered for 25","category":"registered","sentiment":"positive"}"#
        let analysis = try AnalysisRequest.analysis(from: answer(good), Self.spec, OfflineAnalyzerTests.input())
        #expect(analysis == CallAnalysis(method: .llm, data: .object(["attending": .bool(true), "guests": .integer(25), "meal": .null, "budget": .null]),
                                         success: true, reason: "registered for 25", sentiment: .positive, category: "registered"))
        #expect(throws: AnalysisRequest.Failure.self) {
            try AnalysisRequest.analysis(from: answer(good.replacingOccurrences(of: #""category":"registered""#, with: #""category":"maybe""#)), Self.spec, OfflineAnalyzerTests.input())
        }
        #expect(throws: AnalysisRequest.Failure(description: "the message content is not valid JSON")) {
            try AnalysisRequest.analysis(from: answer("Sure! Here it is"), Self.spec, OfflineAnalyzerTests.input())
        }
        let refused = json(#"{"choices": [{"message": {"refusal": "I can't help with that"}}]}"#)
        #expect(throws: AnalysisRequest.Failure(description: "the model refused: I can't help with that")) {
            try AnalysisRequest.analysis(from: refused, Self.spec, OfflineAnalyzerTests.input())
        }
    }
}
