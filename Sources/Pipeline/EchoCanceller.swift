import CSpeexDSP
import Foundation
import Synchronization

/// An acoustic echo canceller for one call: given what the agent played (the far end) and what
/// came back from the line, it takes out the agent's own voice returned by a speakerphone or a
/// line's hybrid, and keeps the caller's.
///
/// Three steps a frame. libspeexdsp's adaptive filter (multi-delay block frequency domain) takes
/// out the echo it has learned; its residual-echo suppressor most of the rest (delaying the audio
/// by one frame, 20 ms). Then a gate, because a voice detector hears speech in an echo's remains
/// however quiet they are: while the agent plays, a frame that is echo is made silence. A frame is
/// echo when the canceller brought it down by `gateDB` or more — or, while the filter is still
/// learning (it has not yet brought echo down by that much on average), when the line is more than
/// `geigelDB` below the loudest the agent played within the tail (the Geigel rule: a line's echo
/// comes back at least 6 dB down, so louder is the caller). A frame that is not echo is the caller,
/// and so are the `hangoverFrames` after it: their quieter syllables are not cut away.
///
/// A line with no echo would keep the filter learning for ever (there is nothing to bring down), and
/// the Geigel rule would cut a caller speaking more than 6 dB below the agent (the filter and the
/// suppressor, with nothing to take out, cost the caller 1.8 dB besides). So the canceller looks
/// at the first `verdictFrames` in which the agent spoke: if the line stayed `silentDB` below it in
/// nearly all of them (`silentShare`), nothing comes back, and from then on the line passes
/// untouched, at no cost. An echo that starts later in the call is not cancelled.
///
/// 8 kHz, 20 ms frames. The filter covers `tailMilliseconds` of echo path: the line's round trip
/// and its jitter buffer included (the far end is taken as the leg sent it, not as it was heard).
public final class EchoCanceller: Sendable {
    public static let frameSamples = 160
    public static let sampleRate = 8000
    public static let gateDB = 10.0
    public static let geigelDB = 6.0
    public static let hangoverFrames = 15
    /// The agent's frames the no-echo verdict waits for (2 s), how far below the agent the line must
    /// stay in them to be taken for no echo (a −20 dB echo is mostly 20–30 dB down), and in how many.
    public static let verdictFrames = 100
    public static let silentDB = 40.0
    public static let silentShare = 0.9
    /// −50 dBFS: below it the agent is taken as silent.
    static let farFloor = pow(10, -50.0 / 10) * 32768 * 32768

    private struct State {
        /// libspeexdsp's filter and suppressor, used one frame at a time.
        let echo: OpaquePointer
        let residual: OpaquePointer
        /// The far end's power, frame by frame, over the filter's tail.
        var recentFar: [Double] = []
        /// How far the canceller brings echo down, in dB, smoothed over the frames judged echo.
        var attenuationDB = 0.0
        /// Frames left in which the line is taken for the caller (it was, just before).
        var callerHangover = 0
        /// The agent's frames so far, and those in which the line stayed silent, until the verdict.
        var farFrames = 0
        var silentFrames = 0
        /// Nothing came back in the first `verdictFrames` of the agent: the line passes untouched.
        var noEcho = false
    }

    private let state: Mutex<State>
    private let tailFrames: Int

    public init(tailMilliseconds: Int = 250) {
        tailFrames = max(1, tailMilliseconds / 20)
        let echo = speex_echo_state_init(Int32(Self.frameSamples), Int32(tailMilliseconds * Self.sampleRate / 1000))!
        var rate = Int32(Self.sampleRate)
        speex_echo_ctl(echo, SPEEX_ECHO_SET_SAMPLING_RATE, &rate)
        let residual = speex_preprocess_state_init(Int32(Self.frameSamples), Int32(Self.sampleRate))!
        // Echo only: noise is another stage's to remove (or keep). The suppressor applies its gains
        // only with its denoiser on (libspeexdsp 1.2.1's preprocess.c), so it stays on with a 0 dB
        // floor for noise: the residual echo is suppressed, the noise left as it came.
        var on: Int32 = 1, off: Int32 = 0, noNoiseFloor: Int32 = 0
        speex_preprocess_ctl(residual, SPEEX_PREPROCESS_SET_DENOISE, &on)
        speex_preprocess_ctl(residual, SPEEX_PREPROCESS_SET_NOISE_SUPPRESS, &noNoiseFloor)
        speex_preprocess_ctl(residual, SPEEX_PREPROCESS_SET_AGC, &off)
        speex_preprocess_ctl(residual, SPEEX_PREPROCESS_SET_ECHO_STATE, UnsafeMutableRawPointer(echo))
        state = Mutex(State(echo: echo, residual: residual))
    }

    deinit {
        state.withLock { s in
            speex_preprocess_state_destroy(s.residual)
            speex_echo_state_destroy(s.echo)
        }
    }

    /// Whether the line was found to return nothing of the agent (it then passes untouched).
    public var foundNoEcho: Bool { state.withLock { $0.noEcho } }

    /// One frame from the line (`heard`) with the far end played at the same tick (`played`;
    /// silence when the agent was quiet), the echo taken out.
    public func cancel(heard: [Int16], played: [Int16]) -> [Int16] {
        precondition(heard.count == Self.frameSamples && played.count == Self.frameSamples, "20 ms frames at 8 kHz")
        if state.withLock({ $0.noEcho }) { return heard }
        var out = [Int16](repeating: 0, count: Self.frameSamples)
        let silenced = state.withLock { s -> Bool in
            heard.withUnsafeBufferPointer { rec in
                played.withUnsafeBufferPointer { play in
                    out.withUnsafeMutableBufferPointer { speex_echo_cancellation(s.echo, rec.baseAddress, play.baseAddress, $0.baseAddress) }
                }
            }
            _ = out.withUnsafeMutableBufferPointer { speex_preprocess_run(s.residual, $0.baseAddress) }
            let far = played.meanSquare
            s.recentFar.append(far)
            if s.recentFar.count > tailFrames { s.recentFar.removeFirst(s.recentFar.count - tailFrames) }
            let loudestFar = s.recentFar.max() ?? 0
            guard loudestFar > Self.farFloor else { return false }
            let (line, left) = (heard.meanSquare, out.meanSquare)
            let attenuation = 10 * log10(max(line, 1) / max(left, 1))
            if s.farFrames < Self.verdictFrames, far > Self.farFloor {
                s.farFrames += 1
                if line < loudestFar * pow(10, -Self.silentDB / 10) { s.silentFrames += 1 }
                if s.farFrames == Self.verdictFrames {
                    s.noEcho = Double(s.silentFrames) >= Self.silentShare * Double(Self.verdictFrames)
                }
            }
            let learning = s.attenuationDB < Self.gateDB
            let echo = attenuation >= Self.gateDB || (learning && line < loudestFar * pow(10, -Self.geigelDB / 10))
            if !echo { s.callerHangover = Self.hangoverFrames }
            guard s.callerHangover == 0 else {
                s.callerHangover -= 1
                return false
            }
            s.attenuationDB += 0.1 * (attenuation - s.attenuationDB)
            return true
        }
        return silenced ? [Int16](repeating: 0, count: Self.frameSamples) : out
    }
}
