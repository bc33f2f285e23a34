import Foundation

/// Moonshine's `tokenizer.bin`: every token's bytes in id order, each preceded by its length
/// (one byte below 128; else two, `first − 128 + second × 128`; 0 = an unused id). Turns the
/// decoder's token ids back into text the way moonshine-cpp does: special tokens (`<…>`) dropped,
/// `▁` read as a space, the ends trimmed.
struct MoonshineTokenizer: Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let tokens: [[UInt8]]
    /// Each token's text → its id (the first, where two share a text).
    private let ids: [String: Int]

    init(path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Failure(description: "cannot read the Moonshine tokenizer \(path)")
        }
        try self.init(bytes: [UInt8](data))
    }

    init(bytes: [UInt8]) throws {
        var tokens: [[UInt8]] = []
        var offset = 0
        while offset < bytes.count {
            var length = Int(bytes[offset])
            offset += 1
            if length >= 128 {
                guard offset < bytes.count else { throw Failure(description: "tokenizer.bin ends inside token \(tokens.count)'s length") }
                length = length - 128 + Int(bytes[offset]) * 128
                offset += 1
            }
            guard offset + length <= bytes.count else { throw Failure(description: "tokenizer.bin ends inside token \(tokens.count)") }
            tokens.append(Array(bytes[offset..<offset + length]))
            offset += length
        }
        self.tokens = tokens
        var ids: [String: Int] = [:]
        for (id, token) in tokens.enumerated() where !token.isEmpty { ids[String(decoding: token, as: UTF8.self)] = ids[String(decoding: token, as: UTF8.self)] ?? id }
        self.ids = ids
    }

    /// The id of the token whose text is exactly `text` (`▁` for a word start).
    func id(of text: String) -> Int? { ids[text] }

    /// The longest token that starts `word` as a word ("▁tom" for "tomorrow"), if it holds at
    /// least `letters` of the word's letters.
    func wordStart(of word: String, letters: Int) -> Int? {
        var prefix = word
        while prefix.count >= letters {
            if let id = ids["\u{2581}" + prefix] { return id }
            prefix.removeLast()
        }
        return nil
    }

    /// The text of `ids`; ids the table does not hold (or holds empty) add nothing.
    func text(of ids: [Int]) -> String {
        var bytes: [UInt8] = []
        for id in ids where tokens.indices.contains(id) {
            let token = tokens[id]
            if token.count > 2, token.first == UInt8(ascii: "<"), token.last == UInt8(ascii: ">") { continue }
            bytes += token
        }
        return String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "\u{2581}", with: " ")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
