import Foundation

/// One uploaded file, checked and cut into chunks — or refused with the file and line at fault.
public struct KnowledgeDocument: Sendable, Equatable {
    public enum Kind: String, Sendable, Codable, CaseIterable {
        /// `.txt`: paragraphs, cut at sentence ends.
        case text
        /// `.md`: sections under their headings, cut the same way.
        case markdown
        /// `.csv` with a question and an answer column: one chunk a row.
        case faq
    }

    public var name: String
    public var kind: Kind
    public var bytes: Int
    /// SHA-256 of the file, hex: an upload of the same bytes is seen as such.
    public var sha256: String
    public var chunks: [KnowledgeChunk]

    /// Largest file taken (a FAQ or a manual, not a book).
    public static let maximumBytes = 2 * 1024 * 1024
    /// Most chunks one file may make.
    public static let maximumChunks = 5000

    public init(name: String, kind: Kind, bytes: Int, sha256: String, chunks: [KnowledgeChunk]) {
        self.name = name
        self.kind = kind
        self.bytes = bytes
        self.sha256 = sha256
        self.chunks = chunks
    }

    /// Reads a file: its kind from the name's extension, UTF-8 checked (the first bad byte's line
    /// is named), cut into chunks.
    public static func parse(name: String, bytes: [UInt8], sha256: String) throws(KnowledgeFileError) -> KnowledgeDocument {
        if let problem = nameProblem(name) { throw KnowledgeFileError(file: String(name.prefix(200)), problem) }
        let kind = try kind(of: name)
        guard !bytes.isEmpty else { throw KnowledgeFileError(file: name, "the file is empty") }
        guard bytes.count <= maximumBytes else {
            throw KnowledgeFileError(file: name, "the file has \(bytes.count) bytes; the limit is \(maximumBytes)")
        }
        guard var text = String(validating: bytes, as: UTF8.self) else {
            throw KnowledgeFileError(file: name, line: firstInvalidUTF8Line(bytes), "the file is not UTF-8 text (save it as UTF-8)")
        }
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }   // a byte-order mark some editors write
        guard text.contains(where: { !$0.isWhitespace }) else { throw KnowledgeFileError(file: name, "the file has no text") }
        let chunks = switch kind {
        case .faq: try FAQTable.chunks(of: text, file: name)
        case .markdown: TextChunker.chunks(of: text, markdown: true)
        case .text: TextChunker.chunks(of: text, markdown: false)
        }
        guard !chunks.isEmpty else { throw KnowledgeFileError(file: name, "the file has nothing to index") }
        guard chunks.count <= maximumChunks else {
            throw KnowledgeFileError(file: name, "the file makes \(chunks.count) chunks; the limit is \(maximumChunks)")
        }
        return KnowledgeDocument(name: name, kind: kind, bytes: bytes.count, sha256: sha256, chunks: chunks)
    }

    static func kind(of name: String) throws(KnowledgeFileError) -> Kind {
        switch (name as NSString).pathExtension.lowercased() {
        case "txt", "text": return .text
        case "md", "markdown": return .markdown
        case "csv": return .faq
        default: throw KnowledgeFileError(file: name, "unsupported file type: use .txt, .md or .csv (a FAQ with question and answer columns)")
        }
    }

    /// A document's name is shown and used in URLs: 1–200 characters, no path separators or controls.
    public static func nameProblem(_ name: String) -> String? {
        if name.isEmpty { return "a document needs a name" }
        if name.count > 200 { return "the name is longer than 200 characters" }
        if name.contains(where: { $0 == "/" || $0 == "\\" || $0.unicodeScalars.contains { CharacterSet.controlCharacters.contains($0) } }) {
            return "the name may not contain slashes or control characters"
        }
        if name.hasPrefix(".") { return "the name may not start with a dot" }
        return nil
    }

    /// The line the first byte that is not UTF-8 is on.
    static func firstInvalidUTF8Line(_ bytes: [UInt8]) -> Int {
        var line = 1, index = 0
        while index < bytes.count {
            let byte = bytes[index]
            let length = byte < 0x80 ? 1 : byte >> 5 == 0b110 ? 2 : byte >> 4 == 0b1110 ? 3 : byte >> 3 == 0b11110 ? 4 : 0
            guard length > 0, index + length <= bytes.count,
                  String(validating: bytes[index..<(index + length)], as: UTF8.self) != nil else { return line }
            if byte == 0x0A { line += 1 }
            index += length
        }
        return line
    }
}
