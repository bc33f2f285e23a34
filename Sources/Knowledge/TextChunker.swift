import Foundation

/// Cuts text into passages a search can return whole: a new chunk at every Markdown heading (the
/// headings above it become its title) and at blank lines once a chunk is long enough; a long
/// paragraph is cut at sentence ends.
enum TextChunker {
    /// A chunk grows by paragraphs up to about this many characters.
    static let targetCharacters = 600
    /// A paragraph longer than this is cut at sentence ends.
    static let maximumCharacters = 1200

    static func chunks(of text: String, markdown: Bool) -> [KnowledgeChunk] {
        var chunks: [KnowledgeChunk] = []
        var headings: [(level: Int, text: String)] = []
        var paragraph: [String] = [], paragraphLine = 1
        var passage = "", passageLine = 1
        var inFence = false

        func title() -> String { headings.map(\.text).joined(separator: " › ") }
        func closePassage() {
            let trimmed = passage.trimmingCharacters(in: .whitespacesAndNewlines)
            if !trimmed.isEmpty { chunks.append(KnowledgeChunk(title: title(), text: trimmed, line: passageLine, isFAQ: false)) }
            passage = ""
        }
        func closeParagraph() {
            let joined = paragraph.joined(separator: " ").trimmingCharacters(in: .whitespaces)
            paragraph = []
            guard !joined.isEmpty else { return }
            for piece in pieces(of: joined) {
                if !passage.isEmpty, passage.count + piece.count > targetCharacters { closePassage() }
                if passage.isEmpty { passageLine = paragraphLine; passage = piece } else { passage += "\n\n" + piece }
            }
        }

        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.hasSuffix("\r") ? String(rawLine.dropLast()) : String(rawLine)
            let number = index + 1
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if markdown, trimmed.hasPrefix("```") || trimmed.hasPrefix("~~~") { inFence.toggle(); continue }
            if markdown, !inFence, let heading = heading(trimmed) {
                closeParagraph(); closePassage()
                headings.removeAll { $0.level >= heading.level }
                headings.append(heading)
                continue
            }
            if trimmed.isEmpty {
                closeParagraph()
                continue
            }
            if paragraph.isEmpty { paragraphLine = number }
            paragraph.append(markdown ? plain(trimmed) : trimmed)
        }
        closeParagraph(); closePassage()
        return chunks
    }

    /// `## Parking` → (2, "Parking").
    static func heading(_ line: String) -> (level: Int, text: String)? {
        let level = line.prefix(while: { $0 == "#" }).count
        guard (1...6).contains(level) else { return nil }
        let rest = line.dropFirst(level)
        guard rest.isEmpty || rest.first == " " else { return nil }
        let text = rest.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "#")).trimmingCharacters(in: .whitespaces)
        return text.isEmpty ? nil : (level, text)
    }

    /// A Markdown line without its list marker, quote mark and emphasis.
    static func plain(_ line: String) -> String {
        var s = Substring(line)
        for marker in ["- ", "* ", "+ ", "> "] where s.hasPrefix(marker) { s = s.dropFirst(2) }
        if let dot = s.firstIndex(of: "."), s[..<dot].allSatisfy(\.isNumber), !s[..<dot].isEmpty, s[s.index(after: dot)...].hasPrefix(" ") {
            s = s[s.index(dot, offsetBy: 2)...]
        }
        return s.replacingOccurrences(of: "**", with: "").replacingOccurrences(of: "__", with: "").replacingOccurrences(of: "`", with: "")
    }

    /// A paragraph as pieces of at most `maximumCharacters`, cut after sentence ends where it is longer.
    static func pieces(of paragraph: String) -> [String] {
        guard paragraph.count > maximumCharacters else { return [paragraph] }
        var pieces: [String] = [], current = ""
        for sentence in sentences(of: paragraph) {
            if !current.isEmpty, current.count + sentence.count > targetCharacters { pieces.append(current); current = "" }
            current += current.isEmpty ? sentence : " " + sentence
            while current.count > maximumCharacters {   // one sentence longer than a chunk
                pieces.append(String(current.prefix(maximumCharacters)))
                current = String(current.dropFirst(maximumCharacters))
            }
        }
        if !current.isEmpty { pieces.append(current) }
        return pieces
    }

    static func sentences(of text: String) -> [String] {
        var sentences: [String] = [], current = ""
        var previous: Character?
        for character in text {
            if character == " ", let previous, ".?!。".contains(previous) {
                sentences.append(current); current = ""
            } else {
                current.append(character)
            }
            previous = character
        }
        if !current.isEmpty { sentences.append(current) }
        return sentences
    }
}
