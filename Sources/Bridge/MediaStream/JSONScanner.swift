/// A forward-only reader over the UTF-8 bytes of one JSON text, for the media hot path.
///
/// Fifty `media` messages a second per call make a general JSON parser (a dictionary of `Any`
/// per message) one of the largest costs of a stream. This reads keys and the few value shapes
/// the media-stream dialects use, skips everything else without building it, and fails on
/// anything it does not expect — including escaped strings. A caller that gets `nil`/`Failure`
/// falls back to the full parser, which either accepts the text or reports the error properly,
/// so the scanner never decides that a message is invalid.
struct JSONScanner: ~Copyable {
    struct Failure: Error {}

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    /// Just after `{`: the next key needs no comma before it.
    private var expectingFirstKey = false

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// The raw bytes of a string's content (between the quotes, no escapes).
    func text(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: bytes[range])
    }

    func string(_ range: Range<Int>) -> String {
        String(decoding: text(range), as: UTF8.self)
    }

    func matches(_ range: Range<Int>, _ literal: StaticString) -> Bool {
        guard range.count == literal.utf8CodeUnitCount else { return false }
        let expected = literal.utf8Start
        for (offset, i) in range.enumerated() where bytes[i] != expected[offset] { return false }
        return true
    }

    /// Only whitespace may follow the value just read.
    mutating func end() throws(Failure) {
        skipWhitespace()
        guard index == bytes.count else { throw Failure() }
    }

    mutating func beginObject() throws(Failure) {
        try expect(UInt8(ascii: "{"))
        skipWhitespace()
        expectingFirstKey = true
    }

    /// The next key of the object being read (its raw content), positioned at its value; nil at
    /// the closing brace. Every value must be consumed (read or skipped) before the next call.
    mutating func nextKey() throws(Failure) -> Range<Int>? {
        skipWhitespace()
        guard index < bytes.count else { throw Failure() }
        if bytes[index] == UInt8(ascii: "}") {
            index += 1
            expectingFirstKey = false
            return nil
        }
        if !expectingFirstKey { try expect(UInt8(ascii: ",")) }
        expectingFirstKey = false
        let key = try stringRange()
        try expect(UInt8(ascii: ":"))
        return key
    }

    /// A string value's raw content.
    mutating func stringRange() throws(Failure) -> Range<Int> {
        try expect(UInt8(ascii: "\""))
        let start = index
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""):
                defer { index += 1 }
                return start..<index
            case UInt8(ascii: "\\"), 0..<0x20: throw Failure()   // escapes and control bytes: the full parser's job
            default: index += 1
            }
        }
        throw Failure()
    }

    /// A decimal integer sent as a JSON number or as a string of digits (Twilio sends strings).
    mutating func integer() throws(Failure) -> Int {
        skipWhitespace()
        guard index < bytes.count else { throw Failure() }
        if bytes[index] == UInt8(ascii: "\"") {
            let range = try stringRange()
            return try Self.decimal(text(range))
        }
        let start = index
        while index < bytes.count, bytes[index] == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
        guard followsNumberGrammar(start..<index) else { throw Failure() }   // not `007` (a string may say "007")
        return try Self.decimal(text(start..<index))
    }

    private static func decimal(_ digits: UnsafeBufferPointer<UInt8>) throws(Failure) -> Int {
        var value = 0
        var negative = false
        for (offset, byte) in digits.enumerated() {
            if offset == 0, byte == UInt8(ascii: "-"), digits.count > 1 { negative = true; continue }
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { throw Failure() }
            let (times, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times.addingReportingOverflow(Int(byte - UInt8(ascii: "0")))
            guard !o1, !o2 else { throw Failure() }
            value = sum
        }
        guard !digits.isEmpty else { throw Failure() }
        return negative ? -value : value
    }

    /// How deep `skipValue` goes into arrays and objects before it gives the message up (to the
    /// full decoder): it recurses, and a peer's `[[[[…` must not reach the end of the stack.
    static let maximumDepth = 32

    /// Skips one value of any shape.
    mutating func skipValue(depth: Int = 0) throws(Failure) {
        skipWhitespace()
        guard index < bytes.count, depth < Self.maximumDepth else { throw Failure() }
        switch bytes[index] {
        case UInt8(ascii: "\""):
            _ = try stringRange()
        case UInt8(ascii: "{"):
            try beginObject()
            while try nextKey() != nil { try skipValue(depth: depth + 1) }
        case UInt8(ascii: "["):
            index += 1
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return }
            while true {
                try skipValue(depth: depth + 1)
                skipWhitespace()
                guard index < bytes.count else { throw Failure() }
                index += 1
                if bytes[index - 1] == UInt8(ascii: "]") { return }
                guard bytes[index - 1] == UInt8(ascii: ",") else { throw Failure() }
            }
        default:
            // A number, true, false or null: its bytes up to the next delimiter.
            let start = index
            while index < bytes.count, !Self.delimiters.contains(bytes[index]) { index += 1 }
            let token = start..<index
            guard matches(token, "true") || matches(token, "false") || matches(token, "null") || isNumber(token) else { throw Failure() }
        }
    }

    /// Whether `range` is a number the full parser takes: its grammar, and finite as a Double
    /// (Foundation refuses `1e999`). Only skipped values come here, so the Double is rare.
    private func isNumber(_ range: Range<Int>) -> Bool {
        followsNumberGrammar(range) && Double(string(range))?.isFinite == true
    }

    /// JSON's number grammar, `-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`: not `+1`, `01`, `1.`
    /// or `.5`.
    private func followsNumberGrammar(_ range: Range<Int>) -> Bool {
        var i = range.lowerBound
        func isDigit(_ at: Int) -> Bool { at < range.upperBound && (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[at]) }
        func digits() -> Bool {
            guard isDigit(i) else { return false }
            while isDigit(i) { i += 1 }
            return true
        }
        if i < range.upperBound, bytes[i] == UInt8(ascii: "-") { i += 1 }
        if i < range.upperBound, bytes[i] == UInt8(ascii: "0") { i += 1 } else if !digits() { return false }
        if i < range.upperBound, bytes[i] == UInt8(ascii: ".") { i += 1; guard digits() else { return false } }
        if i < range.upperBound, bytes[i] | 0x20 == UInt8(ascii: "e") {
            i += 1
            if i < range.upperBound, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard digits() else { return false }
        }
        return i == range.upperBound
    }

    private static let delimiters: Set<UInt8> = [UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"),
                                                 UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t")]

    private mutating func expect(_ byte: UInt8) throws(Failure) {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == byte else { throw Failure() }
        index += 1
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): index += 1
            default: return
            }
        }
    }
}
