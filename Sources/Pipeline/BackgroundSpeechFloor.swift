import Foundation

/// The level of voices that never stop on the line — a room behind the caller, a television
/// across it — learned from the audio itself: a low level of the last six seconds (the 30th
/// percentile of its 200 ms levels), while nearly all of those seconds sounded like speech. Six
/// talkers at once are speech to any detector; what sets the caller apart is that they are
/// nearer, so louder. Speech must stand this many dB above that floor; what stays within it is
/// the background, however speech-like.
///
/// Not the quietest 200 ms: a room of a few talkers, each pausing between sentences, has moments
/// nearly silent and moments several talkers loud — the loudest 60 ms of three seconds of the
/// `line` suite's babble stood 10–17 dB above its quietest 200 ms (the `vad` set's, 6–9), so a
/// floor at the quietest let 60 % of it through as speech. The 30th percentile sits in the
/// background's body, not in its pauses.
///
/// On a clean line, or under a noise the detector does not take for speech (a hum, music on
/// hold), the floor's part of the window is not speech-like and there is no floor: nothing
/// changes (a street's passing sounds can make one for a moment). A caller who talks on without a
/// pause for nearly all of the window (five of six seconds) raises the floor under their own
/// voice, which the margin must leave room for.
///
/// Until the window holds `learningFrames` levels (0.9 s from the first frame: 200 ms to fill the
/// smoothing, 200 ms of Silero settling — its first frames say little, and their quiet, unvoiced
/// levels had kept babble from making a floor —, then 500 ms of levels) no speech starts: voices
/// behind the caller at a line's first moment were a turn before there was a floor to hold them
/// to (the `vad` set's babble: one false onset at each clip's start, 7 a minute). Speech under way
/// goes on. A caller who speaks in that first moment is heard from its end.
public struct BackgroundSpeechFloor: Sendable {
    public struct Settings: Sendable, Equatable {
        /// How far above the floor a frame must be to start speech, and to stay in it (dB).
        public var onsetMarginDB: Double = 9
        public var inSpeechMarginDB: Double = 4
        /// The share of the window that must sound like speech for its floor to be voices: voices
        /// behind the caller sound like speech nearly all the time; a caller who talks 60 % of
        /// the window over a street does not, and at 0.6 their own quieter words were the floor
        /// (the `vad` set's street and DTMF clips lost 1–2 points of frames).
        public var voicedShare: Double = 0.8
        /// Frames (20 ms) of the window the floor is taken from, and how many must be in before
        /// there is a floor at all.
        public var windowFrames = 300
        public var learningFrames = 25
        /// Frames averaged into the level compared with the floor.
        public var comparedFrames = 3
        /// Which of the window's levels is the floor, as a share of them from the quietest (0: the
        /// quietest). Chosen with the held-out personas' voices as babble (30th percentile, six
        /// seconds, 9 and 4 dB: 2 % of the babble at 10 dB taken for speech, 85 % of the caller's
        /// frames heard); the `line` suite reports it on the tuning personas'.
        public var floorShare = 0.3

        public init() {}
    }

    /// Frames averaged into one level of the window (10 × 20 ms).
    static let smoothingFrames = 10

    let settings: Settings
    /// The margins as ratios of mean squares.
    let onsetRatio: Double, inSpeechRatio: Double
    /// One 20 ms frame: its mean square and whether it sounded like speech.
    struct Frame {
        var meanSquare: Double
        var speechLike: Bool
    }

    /// One place of the window: whether the frame that entered it sounded like speech, and the
    /// 200 ms ending there (their mean square, and whether most of them sounded like speech).
    struct Level {
        var frameSpeechLike: Bool
        var meanSquare: Double
        var voiced: Bool
    }

    /// The last `smoothingFrames` frames, newest last.
    private var recent: [Frame] = []
    /// The window, oldest at `next` once it is full; how many of its frames sounded like speech.
    private var window: [Level] = []
    private var next = 0
    private var voicedCount = 0
    private var framesSeen = 0

    public init(settings: Settings = Settings()) {
        self.settings = settings
        onsetRatio = pow(10, settings.onsetMarginDB / 10)
        inSpeechRatio = pow(10, settings.inSpeechMarginDB / 10)
    }

    /// Takes a 20 ms frame's mean square and whether it sounded like speech; returns false when
    /// the frame is within the background's floor (so not the caller's speech).
    public mutating func standsOut(meanSquare: Double, speechLike: Bool, inSpeech: Bool) -> Bool {
        recent.append(Frame(meanSquare: meanSquare, speechLike: speechLike))
        if recent.count > Self.smoothingFrames { recent.removeFirst() }
        guard recent.count == Self.smoothingFrames else { return inSpeech }
        framesSeen += 1
        // Silero's first frames on a line say little, whatever is on it: their levels stay out.
        guard framesSeen > Self.smoothingFrames else { return inSpeech }
        let level = Level(frameSpeechLike: speechLike, meanSquare: Self.meanSquare(of: recent[...]),
                          voiced: recent.count(where: \.speechLike) * 2 >= Self.smoothingFrames)
        if window.count < settings.windowFrames {
            window.append(level)
        } else {
            if window[next].frameSpeechLike { voicedCount -= 1 }
            window[next] = level
            next = (next + 1) % settings.windowFrames
        }
        if speechLike { voicedCount += 1 }
        // The floor is voices only if its own 200 ms sounded like speech: under a hum the quiet
        // moments are the noise alone, and the caller is not held against it.
        guard window.count >= settings.learningFrames else { return inSpeech }
        guard Double(voicedCount) >= settings.voicedShare * Double(window.count) else { return true }
        let levels = window.sorted { $0.meanSquare < $1.meanSquare }
        let floor = levels[min(levels.count - 1, Int(Double(levels.count) * settings.floorShare))]
        guard floor.voiced else { return true }
        let compared = Self.meanSquare(of: recent.suffix(settings.comparedFrames))
        return compared >= floor.meanSquare * (inSpeech ? inSpeechRatio : onsetRatio)
    }

    static func meanSquare(of frames: ArraySlice<Frame>) -> Double {
        frames.reduce(0) { $0 + $1.meanSquare } / Double(frames.count)
    }
}
