import Crypto
import Foundation
import Knowledge

/// The operator answering what callers asked: a FAQ row added to the collection's
/// `answered-questions.csv`, and the questions it answers closed, in one transaction — the next
/// call's search finds the row.
extension KnowledgeStore {
    /// The document the operator's answers go to, one per collection.
    public static let answeredDocument = "answered-questions.csv"

    /// Adds the row `question`, `answer` to `answeredDocument` of `collection` — the document made
    /// anew as the CSV file of its rows, so it reads exactly as an upload of that file would — with
    /// `embedding` (the row's passage's) beside the rows' stored ones, and closes `resolving` (how
    /// many of them were still open comes back with the document).
    @discardableResult
    public func appendAnswer(collection: String, question: String, answer: String, embedding: [Float]?, resolving: [Int64],
                             now: Date = Date()) async throws -> (document: DocumentInfo, resolved: Int) {
        try await sqlWrite { sql in
            let name = Self.answeredDocument
            let rows = try sql.rows("SELECT title, body, embedding FROM knowledge_chunks WHERE collection = ? AND document = ? ORDER BY ordinal", collection, name)
            let table = try rows.map { [try $0.get("title", as: String.self), try $0.get("body", as: String.self)] } + [[question, answer]]
            let bytes = Array(CSVLines.data([["question", "answer"]] + table))
            let document: KnowledgeDocument
            do throws(KnowledgeFileError) {
                document = try KnowledgeDocument.parse(name: name, bytes: bytes, sha256: SHA256.hash(data: bytes).hexDigits)
            } catch {
                throw KnowledgeAnswerFailure.document(error.description)
            }
            let vectors = try rows.map { try $0.get("embedding", as: Data?.self) } + [embedding.map(Self.blob)]
            let info = try Self.store(document, embeddings: vectors, collection: collection, now: now, in: sql)
            return (info, try KnowledgeQuestionStore.resolve(ids: resolving, .answered(collection: collection), now: now, in: sql))
        }
    }
}

/// Why the operator's answer was not stored.
public enum KnowledgeAnswerFailure: Error, Equatable, CustomStringConvertible {
    /// The answered-questions document would no longer be a file an upload takes (too large).
    case document(String)
    /// The row the question was to be another wording of is gone (or not a FAQ row).
    case noSuchRow(Int64)

    public var description: String {
        switch self {
        case .document(let problem): problem
        case .noSuchRow(let id): "no FAQ row with id \(id) (deleted, or not a FAQ row)"
        }
    }
}
