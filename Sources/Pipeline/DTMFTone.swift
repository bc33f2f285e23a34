import Foundation

/// A key's in-band tone (ITU-T Q.23): its row and column frequencies together, for lines that do
/// not carry RFC 4733 events — what a phone's keypad plays.
public enum DTMFTone {
    static let rows: [Character: Double] = [
        "1": 697, "2": 697, "3": 697, "A": 697, "4": 770, "5": 770, "6": 770, "B": 770,
        "7": 852, "8": 852, "9": 852, "C": 852, "*": 941, "0": 941, "#": 941, "D": 941,
    ]
    static let columns: [Character: Double] = [
        "1": 1209, "4": 1209, "7": 1209, "*": 1209, "2": 1336, "5": 1336, "8": 1336, "0": 1336,
        "3": 1477, "6": 1477, "9": 1477, "#": 1477, "A": 1633, "B": 1633, "C": 1633, "D": 1633,
    ]

    /// `key`'s tone for `milliseconds`, then as long a silence, at 8 kHz; each frequency at
    /// −10 dBFS. Empty for a character that is not a key.
    public static func samples(for key: Character, milliseconds: Int = 100) -> [Int16] {
        guard let low = rows[key], let high = columns[key] else { return [] }
        let count = milliseconds * 8
        let amplitude = 32767 * pow(10, -10 / 20.0)
        let tone = (0..<count).map { i -> Int16 in
            let t = Double(i) / 8000
            return Int16(amplitude * (sin(2 * .pi * low * t) + sin(2 * .pi * high * t)) / 2)
        }
        return tone + [Int16](repeating: 0, count: count)
    }
}
