import Foundation

/// The level of voices that never stop on the line — a room behind the caller, a television
/// across it — learned from the audio itself: the quietest 200 ms of the last few seconds, while
/// most of those seconds sounded like speech. Six talkers at once are speech to any detector;
/// what sets the caller apart is that they are nearer, so louder. Speech must stand this many dB
/// above that floor; what stays within it is the background, however speech-like.
///
/// On a clean line, or under a noise the detector does not take for speech (hum, a street), the
/// quiet parts of the window are not speech-like and there is no floor: nothing changes. A
/// caller who talks on without a pause for most of the window raises the floor under their own
/// voice, which the margin must leave room for.
public struct BackgroundSpeechFloor: Sendable {
    public struct Settings: Sendable, Equatable {
        /// How far above the floor a frame must be to start speech, and to stay in it (dB).
        public var onsetMarginDB: Double = 9
        public var inSpeechMarginDB: Double = 6
        /// The share of the window that must sound like speech for its floor to be voices.
        public var voicedShare: Double = 0.6
        /// Frames (20 ms) the floor is the quietest 200 ms of, and how many must be in before
        /// there is a floor at all.
        public var windowFrames = 150
        public var learningFrames = 50
        /// Frames averaged into the level compared with the floor.
        public var comparedFrames = 3

        public init() {}
    }

    /// Frames averaged into one level of the window (10 × 20 ms).
    static let smoothingFrames = 10

    let settings: Settings
    /// The margins as ratios of mean squares.
    let onsetRatio: Double, inSpeechRatio: Double
    /// Mean squares of the last `smoothingFrames` frames, newest last, and whether each sounded like speech.
    private var recent: [Double] = []
    private var recentVoiced: [Bool] = []
    /// Smoothed levels (mean square) of the window, and whether each frame sounded like speech.
    private var levels: [Double] = []
    private var voiced: [Bool] = []
    /// Whether most of each level's 200 ms sounded like speech.
    private var levelVoiced: [Bool] = []
    private var voicedCount = 0
    private var next = 0

    public init(settings: Settings = Settings()) {
        self.settings = settings
        onsetRatio = pow(10, settings.onsetMarginDB / 10)
        inSpeechRatio = pow(10, settings.inSpeechMarginDB / 10)
    }

    /// Takes a 20 ms frame's mean square and whether it sounded like speech; returns false when
    /// the frame is within the background's floor (so not the caller's speech).
    public mutating func standsOut(meanSquare: Double, speechLike: Bool, inSpeech: Bool) -> Bool {
        recent.append(meanSquare)
        recentVoiced.append(speechLike)
        if recent.count > Self.smoothingFrames { recent.removeFirst(); recentVoiced.removeFirst() }
        guard recent.count == Self.smoothingFrames else { return true }
        let smoothed = recent.reduce(0, +) / Double(Self.smoothingFrames)
        let smoothedVoiced = recentVoiced.count(where: \.self) * 2 >= Self.smoothingFrames
        if levels.count < settings.windowFrames {
            levels.append(smoothed)
            voiced.append(speechLike)
            levelVoiced.append(smoothedVoiced)
        } else {
            if voiced[next] { voicedCount -= 1 }
            levels[next] = smoothed
            voiced[next] = speechLike
            levelVoiced[next] = smoothedVoiced
            next = (next + 1) % settings.windowFrames
        }
        if speechLike { voicedCount += 1 }
        // The floor is voices only if its own 200 ms sounded like speech: under a hum or a street
        // the quietest moments are the noise alone, and the caller is not held against it.
        guard levels.count >= settings.learningFrames, Double(voicedCount) >= settings.voicedShare * Double(levels.count),
              let quietest = levels.indices.min(by: { levels[$0] < levels[$1] }), levelVoiced[quietest] else { return true }
        let floor = levels[quietest]
        let compared = recent.suffix(settings.comparedFrames)
        let level = compared.reduce(0, +) / Double(compared.count)
        return level >= floor * (inSpeech ? inSpeechRatio : onsetRatio)
    }
}
