import Pipeline
import Synchronization

/// One call's simulated line (`LineBed.line(seed:)`): each frame the person sends reaches the agent
/// with the bed's noise added and the agent's own audio of `echoDelay` before mixed back in.
/// `MemoryLeg` passes both directions through it, one frame a tick each way.
public final class ImpairedLine: Sendable {
    private struct State {
        var noiseAt: Int
        /// The agent's audio waiting to come back: `echoDelay` samples ahead of what is heard.
        var echo: [Int16]
    }

    private let bed: LineBed
    private let state: Mutex<State>

    init(bed: LineBed, noiseStart: Int) {
        self.bed = bed
        state = Mutex(State(noiseAt: noiseStart, echo: [Int16](repeating: 0, count: bed.echoDelaySamples)))
    }

    /// A μ-law frame the agent sends: kept as the echo's source.
    public func sent(_ frame: [UInt8]) {
        guard bed.echoGain > 0 else { return }
        state.withLock { s in
            s.echo += G711.decode(frame, law: .muLaw)
            // Bounded: the two ends tick together, so only a stalled reader lets it grow.
            let limit = bed.echoDelaySamples + LineNoise.sampleRate
            if s.echo.count > limit { s.echo.removeFirst(s.echo.count - limit) }
        }
    }

    /// A μ-law frame the person sends, as the agent hears it.
    public func heard(_ frame: [UInt8]) -> [UInt8] {
        if bed.condition.isClean { return frame }
        var samples = G711.decode(frame, law: .muLaw).map(Int.init)
        state.withLock { s in
            let noise = bed.noise
            if !noise.isEmpty {
                for i in samples.indices { samples[i] += Int(noise[(s.noiseAt + i) % noise.count]) }
                s.noiseAt = (s.noiseAt + samples.count) % noise.count
            }
            if bed.echoGain > 0 {
                let taken = min(samples.count, s.echo.count)
                for i in 0..<taken { samples[i] += Int((Double(s.echo[i]) * bed.echoGain).rounded()) }
                s.echo.removeFirst(taken)
            }
        }
        return G711.encode(samples.map { Int16(clamping: $0) }, law: .muLaw)
    }
}
