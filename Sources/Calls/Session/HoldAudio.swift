import Foundation
import Pipeline

/// What a caller hears while a warm transfer reaches a person, as 8 kHz μ-law to loop: the
/// built-in tone, or the operator's music (`transfer.hold_music`).
public enum HoldAudio {
    /// 0.4 s of 425 Hz, then 2.6 s of silence.
    public static let tone: [UInt8] = {
        let beep = (0..<3200).map { i in Int16(2400 * sin(2 * Double.pi * 425 * Double(i) / 8000)) }
        return G711.encode(beep + [Int16](repeating: 0, count: 20_800), law: .muLaw)
    }()

    /// The longest music kept (it loops): 10 minutes, 4.8 MB of μ-law.
    public static let maximumSeconds = 600

    public struct Problem: Error, CustomStringConvertible {
        public var description: String
    }

    /// A 16-bit PCM WAV file at any rate, mono or stereo (the left channel is played), as 8 kHz
    /// μ-law; longer than `maximumSeconds` it is cut there.
    public static func load(path: String) throws(Problem) -> [UInt8] {
        let wav: WAVFile
        do { wav = try WAVFile.read(URL(fileURLWithPath: path)) } catch {
            throw Problem(description: "\(path): \(error is WAVFile.Malformed ? "not a WAV file" : "cannot be read (\(error.localizedDescription))")")
        }
        guard wav.format == 1, wav.bitsPerSample == 16, (1...2).contains(wav.channels), (8000...192_000).contains(wav.sampleRate) else {
            throw Problem(description: "\(path): must be 16-bit PCM, mono or stereo, 8–192 kHz (it is format \(wav.format), \(wav.bitsPerSample)-bit, \(wav.channels) channels, \(wav.sampleRate) Hz)")
        }
        let samples = Array(wav.channel(0).prefix(maximumSeconds * wav.sampleRate))
        guard samples.count >= wav.sampleRate / 2 else { throw Problem(description: "\(path): holds less than half a second of audio") }
        var phone = samples
        if wav.sampleRate != 8000 {
            do {
                let resampler = try Resampler(from: wav.sampleRate, to: 8000)
                phone = resampler.process(samples) + resampler.flush()
            } catch {
                throw Problem(description: "\(path): cannot be resampled: \(error)")
            }
        }
        // Whole 20 ms frames, so that the loop does not click mid-frame.
        return G711.encode(Array(phone.prefix(phone.count / 160 * 160)), law: .muLaw)
    }
}
