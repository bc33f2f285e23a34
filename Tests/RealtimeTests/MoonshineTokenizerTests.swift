import Foundation
import Testing
import TestSupport
@testable import Realtime

@Suite struct MoonshineTokenizerTests {
    /// One-byte and two-byte lengths, an unused id, special tokens dropped, `▁` as a space.
    @Test func tokensBecomeTextAsMoonshineWritesIt() throws {
        let long = [UInt8](repeating: UInt8(ascii: "a"), count: 300)       // 300 = 44 + 2 × 128
        func entry(_ text: String) -> [UInt8] { [UInt8(text.utf8.count)] + Array(text.utf8) }
        let bytes = entry("<s>") + entry("</s>") + [0] + entry("\u{2581}Yes") + entry(",") + [UInt8(128 + 44), 2] + long
        let tokenizer = try MoonshineTokenizer(bytes: bytes)
        #expect(tokenizer.tokens.count == 6)
        #expect(tokenizer.tokens[2].isEmpty)
        #expect(tokenizer.tokens[5] == long)
        #expect(tokenizer.text(of: [0, 3, 4, 1]) == "Yes,")
        #expect(tokenizer.text(of: [3, 2, 99, -1]) == "Yes", "unused and unknown ids add nothing")
    }

    @Test func aTruncatedTableIsAClearError() {
        #expect(throws: MoonshineTokenizer.Failure.self) { try MoonshineTokenizer(bytes: [5, 65, 66]) }
        #expect(throws: MoonshineTokenizer.Failure.self) { try MoonshineTokenizer(bytes: [200]) }
    }

    /// The table `make deps` installs: 32,000 ids (the decoder's 32,768 logits are padded), the first
    /// three Moonshine's unknown, start and end.
    @Test func theInstalledTableHasMoonshinesVocabulary() throws {
        let tokenizer = try MoonshineTokenizer(path: Fixtures.moonshine + "/models/base-en/tokenizer.bin")
        #expect(tokenizer.tokens.count == 32_000)
        #expect(tokenizer.tokens[0...2] == [Array("<unk>".utf8), Array("<s>".utf8), Array("</s>".utf8)])
    }
}
