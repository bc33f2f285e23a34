/// A piece of a document that search returns whole: a FAQ row, or a passage of a text under its
/// heading.
public struct KnowledgeChunk: Sendable, Equatable, Codable {
    /// The FAQ's question, or the passage's headings ("Parking › Fees"); may be empty.
    public var title: String
    /// The FAQ's answer, or the passage.
    public var text: String
    /// The line of the file the chunk starts on (1-based).
    public var line: Int
    /// A question/answer row of a FAQ file: the local engine says `text` as the answer.
    public var isFAQ: Bool

    enum CodingKeys: String, CodingKey {
        case title, text, line
        case isFAQ = "faq"
    }

    public init(title: String, text: String, line: Int, isFAQ: Bool) {
        self.title = title
        self.text = text
        self.line = line
        self.isFAQ = isFAQ
    }

    /// The terms of the title and of the text (see `KnowledgeTerms`), as the index keeps them.
    public var titleTerms: String { KnowledgeTerms.terms(of: title).joined(separator: " ") }
    public var textTerms: String { KnowledgeTerms.terms(of: text).joined(separator: " ") }
}
