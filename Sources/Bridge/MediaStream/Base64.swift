/// Standard base64 (RFC 4648 §4, padded), for media payloads: 160 μ-law bytes each way, fifty
/// times a second per call. Works on raw UTF-8 bytes, so a payload is decoded straight from the
/// received frame and encoded straight into the outgoing message, with no `Data` or `String`
/// in between. Decoding is strict, like Foundation's: no whitespace, padding only at the end.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let invalid: UInt8 = 0xFF
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: invalid, count: 256)
        for (value, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(value) }
        return table
    }()

    static func encodedCount(_ count: Int) -> Int { (count + 2) / 3 * 4 }

    /// Writes the encoding of `input` to `output` (at least `encodedCount` bytes); returns the count.
    static func encode(_ input: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<UInt8>) -> Int {
        alphabet.withUnsafeBufferPointer { a in
            var o = 0
            var i = 0
            while i + 3 <= input.count {
                let n = Int(input[i]) << 16 | Int(input[i + 1]) << 8 | Int(input[i + 2])
                output[o] = a[n >> 18]; output[o + 1] = a[(n >> 12) & 63]; output[o + 2] = a[(n >> 6) & 63]; output[o + 3] = a[n & 63]
                i += 3; o += 4
            }
            switch input.count - i {
            case 1:
                let n = Int(input[i]) << 16
                output[o] = a[n >> 18]; output[o + 1] = a[(n >> 12) & 63]; output[o + 2] = UInt8(ascii: "="); output[o + 3] = UInt8(ascii: "=")
                o += 4
            case 2:
                let n = Int(input[i]) << 16 | Int(input[i + 1]) << 8
                output[o] = a[n >> 18]; output[o + 1] = a[(n >> 12) & 63]; output[o + 2] = a[(n >> 6) & 63]; output[o + 3] = UInt8(ascii: "=")
                o += 4
            default: break
            }
            return o
        }
    }

    /// The bytes `text` encodes, or nil when it is not padded base64.
    static func decode(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard text.count % 4 == 0 else { return nil }
        guard !text.isEmpty else { return [] }
        let padding = text[text.count - 1] == UInt8(ascii: "=") ? (text[text.count - 2] == UInt8(ascii: "=") ? 2 : 1) : 0
        let count = text.count / 4 * 3 - padding
        var valid = true
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { out, written in
            values.withUnsafeBufferPointer { v in
                var o = 0
                var i = 0
                while i < text.count {
                    let last = i + 4 == text.count
                    let pad = last ? padding : 0
                    let c0 = v[Int(text[i])], c1 = v[Int(text[i + 1])]
                    let c2 = pad == 2 ? 0 : v[Int(text[i + 2])]
                    let c3 = pad >= 1 ? 0 : v[Int(text[i + 3])]
                    if c0 | c1 | c2 | c3 > 63 { valid = false; break }   // any invalid byte (0xFF)
                    let n = Int(c0) << 18 | Int(c1) << 12 | Int(c2) << 6 | Int(c3)
                    out[o] = UInt8(truncatingIfNeeded: n >> 16)
                    if pad < 2 { out[o + 1] = UInt8(truncatingIfNeeded: n >> 8) }
                    if pad < 1 { out[o + 2] = UInt8(truncatingIfNeeded: n) }
                    o += 3 - pad
                    i += 4
                }
                written = valid ? o : 0
            }
        }
        return valid ? bytes : nil
    }
}
