/// Bytes written as a digest is: lowercase hexadecimal, two digits a byte. One spelling for the
/// store's node identities and key ids, the API's token labels and document hashes, and the
/// doctor's model checksums.
extension Sequence<UInt8> {
    public var hexDigits: String {
        let digits = Array("0123456789abcdef".utf8)   // made once a call, not once a digit
        var out: [UInt8] = []
        out.reserveCapacity(underestimatedCount * 2)
        for byte in self {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
