/// 16-bit little-endian PCM, as WAV files, OpenAI speech, Exotel streams and the recorder carry it.
public enum PCM16 {
    /// The samples in `bytes` (a trailing odd byte is not a sample and is left out).
    public static func samples(_ bytes: [UInt8]) -> [Int16] {
        stride(from: 0, to: bytes.count - 1, by: 2).map { Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8) }
    }

    public static func bytes(_ samples: [Int16]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: samples.count * 2)
        for (i, sample) in samples.enumerated() {
            out[2 * i] = UInt8(truncatingIfNeeded: sample)
            out[2 * i + 1] = UInt8(truncatingIfNeeded: sample >> 8)
        }
        return out
    }
}
