import Tools

/// What a template asks to learn from each of its calls once it ends (seed 000 §12): structured
/// data against a JSON Schema, whether the call succeeded by the operator's own definition, the
/// callee's sentiment, and the call's category.
public struct AnalysisSpec: Codable, Sendable, Equatable {
    /// The data to extract: a JSON Schema object (the keywords tools' parameters may use).
    public var schema: JSONValue?
    /// What success means for these calls, in a sentence ("the callee booked a visit").
    public var success: String?
    /// Classify the callee's sentiment (positive, neutral, negative); default true.
    public var sentiment: Bool?
    /// The categories a call is put in; nil: the flow's outcomes, or the default ones.
    public var categories: [String]?

    public init(schema: JSONValue? = nil, success: String? = nil, sentiment: Bool? = nil, categories: [String]? = nil) {
        self.schema = schema
        self.success = success
        self.sentiment = sentiment
        self.categories = categories
    }

    public static let defaultCategories = ["task_completed", "partial", "no_answers"]

    /// Every problem, named under `analysis.`.
    public func problems() -> [(field: String, message: String)] {
        var problems: [(String, String)] = []
        if let schema {
            do { _ = try JSONSchema(parameters: schema) } catch {
                problems.append((error.field.replacingOccurrences(of: "parameters", with: "analysis.schema"), error.message))
            }
        }
        if let success, success.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty || success.count > 1000 {
            problems.append(("analysis.success", "must be 1 to 1000 characters"))
        }
        if let categories, categories.isEmpty || categories.count > 20 || categories.contains(where: { $0.isEmpty || $0.count > 64 }) {
            problems.append(("analysis.categories", "must list 1 to 20 labels of 1 to 64 characters"))
        }
        return problems
    }
}
