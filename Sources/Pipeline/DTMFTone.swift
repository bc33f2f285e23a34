import Foundation

/// A key's in-band tone (ITU-T Q.23): its row and column frequencies together, for lines that do
/// not carry RFC 4733 events — what a phone's keypad plays.
public enum DTMFTone {
    /// `key`'s tone for `milliseconds`, then as long a silence, at 8 kHz; each frequency at
    /// −10 dBFS. Empty for a character that is not a key.
    public static func samples(for key: Character, milliseconds: Int = 100) -> [Int16] {
        // The keypad the detector reads keys from: the key's row and column frequencies.
        guard let row = ToneDetector.keys.firstIndex(where: { $0.contains(key) }),
              let column = ToneDetector.keys[row].firstIndex(of: key) else { return [] }
        let (low, high) = (ToneDetector.rows[row], ToneDetector.columns[column])
        let count = milliseconds * 8
        let amplitude = 32767 * pow(10, -10 / 20.0)
        let tone = (0..<count).map { i -> Int16 in
            let t = Double(i) / 8000
            return Int16(amplitude * (sin(2 * .pi * low * t) + sin(2 * .pi * high * t)) / 2)
        }
        return tone + [Int16](repeating: 0, count: count)
    }
}
