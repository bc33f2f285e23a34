import Flows
import Tools

/// The post-call analysis without a model: the schema's properties filled from the flow fields
/// and answers of the same name, success as the call's own completion (a flow that reached an
/// end, or every question answered — the operator's sentence needs a model to judge), the
/// lexicon's sentiment, and the outcome or completion as the category.
public enum OfflineAnalyzer {
    public static func analyze(_ spec: AnalysisSpec, _ input: AnalysisInput) -> CallAnalysis {
        let answered = input.answers.filter { $0.status == "answered" }.count
        let reached = input.answers.filter { $0.status != "not_asked" }
        let reason: String
        if let outcome = input.outcome {
            reason = "the flow reached its end '\(outcome)'"
        } else if !input.flowOutcomes.isEmpty {
            reason = "the call ended before the flow reached an end"
        } else {
            let refused = reached.filter { $0.status == "refused" }.count
            reason = "\(answered) of \(input.answers.count) questions answered" + (refused > 0 ? ", \(refused) refused" : "")
        }
        let category = input.outcome.flatMap { input.categories(spec).contains($0) ? $0 : nil }
            ?? (input.taskCompleted ? "task_completed" : answered > 0 ? (input.flowOutcomes.isEmpty ? "partial" : "incomplete") : "no_answers")
        let sentiment = spec.sentiment == false ? nil : SentimentLexicon.sentiment(of: input.transcript.filter { $0.speaker == "customer" }.map(\.text))
        return CallAnalysis(method: .offline, data: data(spec.schema, input), success: input.taskCompleted, reason: reason, sentiment: sentiment, category: category)
    }

    /// Each schema property from the field or answer of its name, as the property's type asks; null when none.
    static func data(_ schema: JSONValue?, _ input: AnalysisInput) -> JSONValue {
        guard let properties = schema?["properties"]?.objectValue else { return .object([:]) }
        var data: [String: JSONValue] = [:]
        for (name, property) in properties {
            let types = property["type"].map { $0.arrayValue?.compactMap(\.stringValue) ?? [$0.stringValue ?? ""] } ?? []
            let field = input.fields[name]
            let text = field?.answer ?? input.answers.first { $0.id == name && $0.status == "answered" }?.answer
            data[name] = text.flatMap { value(of: $0, kind: field?.kind, as: types) } ?? .null
        }
        return .object(data)
    }

    static func value(of text: String, kind: FlowFieldKind?, as types: [String]) -> JSONValue? {
        let lowered = text.lowercased()
        if types.contains("boolean"), lowered == "yes" || lowered == "no" { return .bool(lowered == "yes") }
        let number = FlowFieldValue.leadingNumber(text)
        if types.contains("integer"), let number, number == number.rounded() { return .integer(Int64(number)) }
        if types.contains("number"), let number { return .number(number) }
        if types.isEmpty || types.contains("string") { return .string(text) }
        return nil
    }
}
