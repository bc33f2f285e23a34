import Foundation

/// A hissing line: white noise added to speech, peaking `decibels` below full scale, drawn from
/// a seed so that the same seed hisses the same way on every machine and every run (the
/// simulated callee's `<noise …>`, the recognizers' confidence tests).
public enum Hiss {
    public static func added(to samples: [Int16], decibels: Double, seed: UInt64) -> [Int16] {
        var random = SeededRandom(seed: seed)
        let peak = 32_767 * pow(10, -decibels / 20)
        return samples.map { Int16(clamping: Int($0) + Int(((random.unit() * 2 - 1) * peak).rounded())) }
    }

    /// A seed from `text` (FNV-1a of its bytes): the same words hiss the same way.
    public static func seed(_ text: String) -> UInt64 {
        text.utf8.reduce(0xcbf2_9ce4_8422_2325 as UInt64) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
    }
}
