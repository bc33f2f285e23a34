import Tools

/// `search_knowledge`: the model engines' way into the call's collections. The model asks in
/// its own words; the best passages come back for it to answer from.
public struct KnowledgeSearchTool: LocalTool {
    public static let name = "search_knowledge"
    /// Passages handed to the model per search.
    public static let resultLimit = 3

    let searcher: any KnowledgeSearching
    let collections: [String]
    /// What counts as a passage close enough to answer from (the local engine's own measure).
    let policy: KnowledgeAnswerPolicy

    public init(searcher: any KnowledgeSearching, collections: [String], policy: KnowledgeAnswerPolicy = .standard) {
        self.searcher = searcher
        self.collections = collections
        self.policy = policy
    }

    /// The declaration offered to the model (the server answers it; it has no URL).
    public static func definition(collections: [String]) -> ToolDefinition {
        ToolDefinition(
            name: name,
            description: "Searches the operator's knowledge base (\(collections.joined(separator: ", "))) for what the caller asked: "
                + "opening hours, prices, policies, directions and the like. Answer only from the passages it returns; "
                + "if none answers the question, say you will pass the question on.",
            parameters: .object([
                "type": .string("object"),
                "properties": .object(["query": .object(["type": .string("string"), "minLength": .integer(1), "maxLength": .integer(500),
                                                         "description": .string("the caller's question as one that stands on its own, in the caller's language: "
                                                             + "name what 'it' or 'that' means from the conversation")])]),
                "required": .array([.string("query")]),
                "additionalProperties": .bool(false),
            ]),
            url: "local:knowledge", method: "POST", timeoutMilliseconds: 2000, speakWhileWaiting: nil)
    }

    public func run(_ arguments: JSONValue) async -> LocalToolAnswer {
        let query = arguments["query"]?.stringValue ?? ""
        do {
            let hits = try await searcher.searchKnowledge(query, in: collections, limit: Self.resultLimit)
            if hits.isEmpty {
                return LocalToolAnswer(answer: .object(["results": .array([]), "note": .string("nothing found: tell the caller you will pass the question on")]),
                                       passedOn: query)
            }
            let results = JSONValue.array(hits.map { hit in
                .object(["title": .string(hit.chunk.title), "text": .string(hit.chunk.text), "source": .string(hit.document)])
            })
            // Passages that are all far from the question: the model may still find its answer in
            // one, but an answer from them is a guess, so the question is kept for the operator too.
            guard hits.contains(where: policy.isConfident) else {
                return LocalToolAnswer(answer: .object(["results": results,
                                                        "note": .string("weak matches: answer only if one plainly answers the question; otherwise tell the caller you will pass the question on")]),
                                       passedOn: query)
            }
            return LocalToolAnswer(answer: .object(["results": results]))
        } catch {
            return LocalToolAnswer(answer: .object(["error": .string("search_failed"), "message": .string("the knowledge base could not be searched")]),
                                   error: "the knowledge base could not be searched: \(error)")
        }
    }
}
