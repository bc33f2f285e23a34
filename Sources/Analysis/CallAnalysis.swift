import Tools

/// A call's post-call analysis, and which method produced it.
public struct CallAnalysis: Codable, Sendable, Equatable {
    public enum Method: String, Codable, Sendable {
        /// A structured-output request to the configured LLM.
        case llm
        /// From the call's fields, answer statuses and a small English/Korean sentiment lexicon.
        case offline
    }

    public enum Sentiment: String, Codable, Sendable, CaseIterable {
        case positive, neutral, negative
    }

    public var method: Method
    /// The template schema's data (an object; `{}` without a schema).
    public var data: JSONValue
    public var success: Bool
    /// One line saying why.
    public var reason: String
    public var sentiment: Sentiment?
    public var category: String
    /// Why the LLM's analysis is not the one stored (it failed every attempt), when it is not.
    public var llmError: String?

    enum CodingKeys: String, CodingKey {
        case method, data, success, reason, sentiment, category
        case llmError = "llm_error"
    }

    public init(method: Method, data: JSONValue, success: Bool, reason: String, sentiment: Sentiment?, category: String, llmError: String? = nil) {
        self.method = method
        self.data = data
        self.success = success
        self.reason = reason
        self.sentiment = sentiment
        self.category = category
        self.llmError = llmError
    }
}
