import CSV
import Foundation

/// A FAQ file: CSV whose header names a question column and an answer column (in English or
/// Korean); every other column is ignored. One chunk a row.
enum FAQTable {
    static let questionHeaders = ["question", "questions", "q", "faq", "질문", "문의"]
    static let answerHeaders = ["answer", "answers", "a", "response", "답변", "답", "응답"]

    static func chunks(of text: String, file: String) throws(KnowledgeFileError) -> [KnowledgeChunk] {
        let reader: CSVReader
        do {
            reader = try CSVReader(string: text, hasHeaderRow: true, trimFields: true)
        } catch {
            throw KnowledgeFileError(file: file, line: 1, "the file is not readable CSV: \(error)")
        }
        guard let header = reader.headerRow?.map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }),
              header.contains(where: { !$0.isEmpty }) else {
            throw KnowledgeFileError(file: file, line: 1, "the first line must name the columns (question, answer)")
        }
        guard let question = header.firstIndex(where: questionHeaders.contains),
              let answer = header.firstIndex(where: answerHeaders.contains) else {
            throw KnowledgeFileError(file: file, line: 1,
                                     "a FAQ file needs a question column and an answer column (found: \(header.joined(separator: ", ")))")
        }
        var chunks: [KnowledgeChunk] = []
        var line = 1 + newlines(in: reader.headerRow ?? [])
        while let fields = reader.next() {
            line += 1
            defer { line += newlines(in: fields) }
            if fields.allSatisfy(\.isEmpty) { continue }   // blank lines
            guard fields.count == header.count else {
                throw KnowledgeFileError(file: file, line: line, "the row has \(fields.count) fields; the header has \(header.count)")
            }
            let q = fields[question], a = fields[answer]
            if q.isEmpty { throw KnowledgeFileError(file: file, line: line, "the question is empty") }
            if a.isEmpty { throw KnowledgeFileError(file: file, line: line, "the answer is empty") }
            chunks.append(KnowledgeChunk(title: q, text: a, line: line, isFAQ: true))
        }
        if let error = reader.error { throw KnowledgeFileError(file: file, line: line + 1, "the file stops being readable CSV: \(error)") }
        return chunks
    }

    private static func newlines(in fields: [String]) -> Int {
        fields.reduce(0) { $0 + $1.reduce(0) { $1 == "\n" || $1 == "\r\n" ? $0 + 1 : $0 } }
    }
}
