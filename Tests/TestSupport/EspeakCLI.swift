import Foundation
import Pipeline

/// espeak-ng's own program, for speech the library calls cannot make: SSML, whose `<break>`
/// puts a pause inside a sentence with the sentence's intonation carried across it.
public enum EspeakCLI {
    /// `ssml` (inside `<speak>`) in `voice` at `wordsPerMinute`: 22.05 kHz samples.
    public static func say(ssml: String, voice: String = "en-us", wordsPerMinute: Int = 160) async throws -> [Int16] {
        let file = try await wav(ssml: ssml, voice: voice, wordsPerMinute: wordsPerMinute)
        defer { try? FileManager.default.removeItem(at: file) }
        return try WAVFile.read(file).samples
    }

    /// The same, as a WAV file (22.05 kHz) in the temporary folder, for a peer that plays a file;
    /// the caller removes it.
    public static func wav(ssml: String, voice: String = "en-us", wordsPerMinute: Int = 160) async throws -> URL {
        try await offThePool {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("espeak-\(UUID().uuidString).wav")
            let espeak = Process()
            espeak.executableURL = URL(fileURLWithPath: "/usr/bin/espeak-ng")
            espeak.arguments = ["-m", "-v", voice, "-s", "\(wordsPerMinute)", "-w", file.path, "<speak>\(ssml)</speak>"]
            try espeak.run()
            espeak.waitUntilExit()
            return file
        }
    }

    /// The samples before the longest quiet run (a `<break>`).
    public static func beforeBreak(_ samples: [Int16]) -> [Int16] {
        var best = (length: 0, start: samples.count), run = 0
        for (i, x) in samples.enumerated() {
            if abs(Int(x)) < 200 { run += 1; continue }
            if run > best.length { best = (run, i - run) }
            run = 0
        }
        return Array(samples[..<best.start])
    }
}
