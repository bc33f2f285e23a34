import Foundation

extension Collection where Element == Int16 {
    /// The mean of the squared samples (0 when empty): a stretch of audio's power, what a level in
    /// dBFS is taken from (`10 · log10(meanSquare / 32768²)`).
    public var meanSquare: Double {
        isEmpty ? 0 : reduce(0.0) { $0 + Double($1) * Double($1) } / Double(count)
    }

    /// The stretch's level in dB below full scale (silence reads about −260).
    public var levelDBFS: Double {
        10 * log10(Swift.max(meanSquare, 1e-9) / (32768 * 32768))
    }
}
