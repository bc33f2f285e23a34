/// A block of mono 16-bit PCM audio with its place on the stream's media clock.
///
/// `timestamp` counts samples since the start of the stream at `sampleRate`, the same way an RTP
/// timestamp does, so frames can be ordered, gaps detected and durations computed without wall time.
public struct AudioFrame: Sendable, Equatable {
    public var samples: [Int16]
    public var sampleRate: Int
    public var timestamp: UInt64

    public init(samples: [Int16], sampleRate: Int, timestamp: UInt64 = 0) {
        self.samples = samples
        self.sampleRate = sampleRate
        self.timestamp = timestamp
    }

    /// Frames are 20 ms everywhere in VoiceBridge: the RTP packetisation interval and the pacer tick.
    public static let durationMilliseconds = 20

    /// Samples in one 20 ms frame at `sampleRate` (160 at 8 kHz, 320 at 16 kHz, 480 at 24 kHz).
    public static func samplesPerFrame(sampleRate: Int) -> Int {
        sampleRate * durationMilliseconds / 1000
    }

    public var durationMilliseconds: Double {
        Double(samples.count) * 1000 / Double(sampleRate)
    }

    /// A frame of digital silence.
    public static func silence(sampleRate: Int, timestamp: UInt64 = 0) -> AudioFrame {
        AudioFrame(samples: [Int16](repeating: 0, count: samplesPerFrame(sampleRate: sampleRate)),
                   sampleRate: sampleRate, timestamp: timestamp)
    }
}
