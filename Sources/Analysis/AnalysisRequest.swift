import Foundation
import Tools

/// The post-call analysis as one Chat Completions request with structured output
/// (`response_format: json_schema`): the transcript and answers in, one JSON object out, checked
/// against the schema before it is believed.
public enum AnalysisRequest {
    public struct Failure: Error, Equatable, CustomStringConvertible {
        public var description: String
    }

    /// The request body for `POST {base}/chat/completions`.
    public static func body(_ spec: AnalysisSpec, _ input: AnalysisInput, model: String) -> JSONValue {
        .object([
            "model": .string(model),
            "temperature": .number(0),
            "messages": .array([
                .object(["role": .string("system"), "content": .string(instructions(spec, input))]),
                .object(["role": .string("user"), "content": .string(conversation(input))]),
            ]),
            "response_format": .object([
                "type": .string("json_schema"),
                // Not `strict`: a strict schema needs every property required and closed, which an
                // operator's schema need not be; the answer is checked here instead.
                "json_schema": .object(["name": .string("call_analysis"), "schema": schema(spec, input)]),
            ]),
        ])
    }

    /// The answer's shape: the operator's data beside the verdict, sentiment and category.
    static func schema(_ spec: AnalysisSpec, _ input: AnalysisInput) -> JSONValue {
        var properties: [String: JSONValue] = [
            "data": spec.schema ?? .object(["type": .string("object"), "properties": .object([:])]),
            "success": .object(["type": .string("boolean")]),
            "reason": .object(["type": .string("string"), "description": .string("one line")]),
            "category": .object(["type": .string("string"), "enum": .array(input.categories(spec).map(JSONValue.string))]),
        ]
        var required: [JSONValue] = ["data", "success", "reason", "category"].map(JSONValue.string)
        if spec.sentiment != false {
            properties["sentiment"] = .object(["type": .string("string"), "enum": .array(CallAnalysis.Sentiment.allCases.map { .string($0.rawValue) })])
            required.append(.string("sentiment"))
        }
        return .object(["type": .string("object"), "properties": .object(properties), "required": .array(required), "additionalProperties": .bool(false)])
    }

    static func instructions(_ spec: AnalysisSpec, _ input: AnalysisInput) -> String {
        var lines = [
            "You analyse a finished phone call an AI agent made about: \(input.purpose).",
            "Fill `data` from what the callee said; use null where the call does not say.",
            "Success means: \(spec.success ?? "the call achieved its purpose"). Set `success` and give the reason in one line.",
            "Put the call in one `category`: \(input.categories(spec).joined(separator: ", ")).",
        ]
        if spec.sentiment != false { lines.append("Classify the callee's sentiment: positive, neutral or negative.") }
        lines.append("Answer with the JSON object only.")
        return lines.joined(separator: "\n")
    }

    static func conversation(_ input: AnalysisInput) -> String {
        var text = "Transcript:\n" + input.transcript.map { "\($0.speaker == "ai" ? "Agent" : "Callee"): \($0.text)" }.joined(separator: "\n")
        text += "\n\nAnswers recorded:\n" + input.answers.map { "- \($0.question) → \($0.status)\($0.answer.map { ": \($0)" } ?? "")" }.joined(separator: "\n")
        if let outcome = input.outcome { text += "\n\nThe conversation's flow ended with outcome: \(outcome)" }
        return text
    }

    /// The analysis in a Chat Completions answer, or what is wrong with it.
    public static func analysis(from response: JSONValue, _ spec: AnalysisSpec, _ input: AnalysisInput) throws(Failure) -> CallAnalysis {
        guard let message = response["choices"]?.arrayValue?.first?["message"] else { throw Failure(description: "the answer has no choices[0].message") }
        if let refusal = message["refusal"]?.stringValue { throw Failure(description: "the model refused: \(refusal)") }
        guard let content = message["content"]?.stringValue else { throw Failure(description: "the answer's message has no content") }
        let object: JSONValue
        do { object = try JSONValue.parse(content) } catch { throw Failure(description: "the message content is \(error.description)") }
        // A property the call does not settle comes back null, as asked: checked as absent.
        var checked = object
        if case .object(var whole) = object, case .object(let data)? = whole["data"] {
            whole["data"] = .object(data.filter { $0.value != .null })
            checked = .object(whole)
        }
        let violations = try? JSONSchema(parameters: schema(spec, input)).violations(of: checked)
        if let violations, !violations.isEmpty { throw Failure(description: "the analysis does not fit its schema: " + violations.prefix(3).joined(separator: "; ")) }
        guard case .bool(let success)? = object["success"], let reason = object["reason"]?.stringValue, let category = object["category"]?.stringValue else {
            throw Failure(description: "the analysis lacks success, reason or category")
        }
        return CallAnalysis(method: .llm, data: object["data"] ?? .object([:]), success: success, reason: reason,
                            sentiment: object["sentiment"]?.stringValue.flatMap(CallAnalysis.Sentiment.init(rawValue:)), category: category)
    }
}
