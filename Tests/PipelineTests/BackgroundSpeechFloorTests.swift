import Foundation
import Pipeline
import Testing
import TestSupport

/// `engine.hold_background_voices`: Silero with `BackgroundSpeechFloor` on the hard labelled set.
/// Voices behind the caller (babble) stop being speech once the floor has been learned; the caller
/// over them is still heard; where the background is not voices, nothing changes. (What it does to
/// whole calls is `make bench`'s `line` suite, the `-bg` conditions.)
@Suite struct BackgroundSpeechFloorTests {
    static func detector(_ model: SileroModel, holding: Bool) -> ([Int16]) -> (isSpeech: Bool, started: Bool) {
        var configuration = VoiceActivityDetector.Configuration()
        if holding { configuration.background = BackgroundSpeechFloor.Settings() }
        return VADTestSet.detector(neural: model, configuration: configuration)
    }

    /// Each 20 ms frame's decision over `samples`.
    static func decisions(_ samples: [Int16], _ detect: ([Int16]) -> (isSpeech: Bool, started: Bool)) -> [(isSpeech: Bool, started: Bool)] {
        stride(from: 0, to: samples.count - 159, by: 160).map { detect(Array(samples[$0..<($0 + 160)])) }
    }

    @Test func babbleAloneStopsBeingSpeechOnceItsFloorIsLearned() throws {
        let model = try #require(SileroVADTests.model)
        let set = try VADTestSet.fromFixtures()
        let babble = try #require(set.noiseOnly.first { $0.noise == "babble" })
        let learned = 3 * 50   // frames: the window is full after 3 s
        let without = Self.decisions(babble.samples, Self.detector(model, holding: false)).dropFirst(learned)
        let with = Self.decisions(babble.samples, Self.detector(model, holding: true)).dropFirst(learned)
        let share = { (d: ArraySlice<(isSpeech: Bool, started: Bool)>) in Double(d.count { $0.isSpeech }) / Double(d.count) }
        #expect(share(without) > 0.9, "without the floor six talkers are speech (\(share(without)))")
        #expect(share(with) < 0.1 && !with.contains { $0.started }, "held: \(share(with)) of the frames speech, onsets \(with.count { $0.started })")
    }

    /// Nor do they start a turn before the floor is learned: the line's first moment starts none
    /// (it did at every clip's start, Silero alone deciding until then).
    @Test func babbleFromTheLinesFirstMomentStartsNoTurn() throws {
        let model = try #require(SileroVADTests.model)
        let set = try VADTestSet.fromFixtures()
        for clip in set.noiseOnly.filter({ $0.noise == "babble" }) + set.mixed.filter({ $0.noise == "babble" }) {
            let beforeSpeech = (clip.speech.first?.lowerBound ?? clip.samples.count) / 160 - 5
            let without = Self.decisions(clip.samples, Self.detector(model, holding: false)).prefix(beforeSpeech)
            let with = Self.decisions(clip.samples, Self.detector(model, holding: true)).prefix(beforeSpeech)
            #expect(without.contains { $0.started }, "\(clip.name): Silero alone takes the babble for speech")
            #expect(!with.contains { $0.started }, "\(clip.name): held, a turn started at frame \(with.firstIndex { $0.started } ?? -1)")
        }
    }

    @Test func theCallerOverBabbleAt10dBIsStillHeard() throws {
        let model = try #require(SileroVADTests.model)
        let clips = try VADTestSet.fromFixtures().mixed.filter { $0.noise == "babble" && $0.snrDB == 10 }
        let held = VADTestSet.score(clips) { _ in Self.detector(model, holding: true) }
        let plain = VADTestSet.score(clips) { _ in Self.detector(model, holding: false) }
        #expect(held.missedSegments == 0, "missed \(held.missedSegments) of \(held.segments)")
        #expect(held.accuracy > plain.accuracy + 0.1, "frames right: \(held.accuracy) held, \(plain.accuracy) not")
    }

    /// Soft speech over comfort noise, and speech under a hum or music on hold: the quiet moments
    /// are not voices, so there is no floor and every decision after the first 0.9 s (while a floor
    /// is learned, no speech starts) is the same; none of these clips speaks before then.
    @Test func whereTheBackgroundIsNotVoicesNothingChanges() throws {
        let model = try #require(SileroVADTests.model)
        let set = try VADTestSet.fromFixtures()
        let learning = BackgroundSpeechFloor.Settings().learningFrames + 20   // + the smoothing's 10 frames and Silero's settling 10
        for clip in set.soft + set.mixed.filter({ ["hum-50Hz", "hum-60Hz", "music-on-hold"].contains($0.noise) && $0.snrDB != 0 }) {
            let held = Self.decisions(clip.samples, Self.detector(model, holding: true)).map(\.isSpeech)
            let plain = Self.decisions(clip.samples, Self.detector(model, holding: false)).map(\.isSpeech)
            #expect(held[learning...] == plain[learning...], "\(clip.name): \(zip(held[learning...], plain[learning...]).count { $0 != $1 }) frames differ after the learning")
        }
    }

    /// Every other noise at 10 and 20 dB: no speech missed, and at most a point of frames lost
    /// (a street's passing sounds can be speech-like enough to make a floor for a moment).
    @Test func underOtherNoisesTheCallerIsHeardAsBefore() throws {
        let model = try #require(SileroVADTests.model)
        let set = try VADTestSet.fromFixtures()
        for noise in VADTestSet.noises where noise != "babble" {
            let clips = set.mixed.filter { $0.noise == noise && $0.snrDB != 0 }
            let held = VADTestSet.score(clips) { _ in Self.detector(model, holding: true) }
            let plain = VADTestSet.score(clips) { _ in Self.detector(model, holding: false) }
            #expect(held.missedSegments == 0 && held.accuracy >= plain.accuracy - 0.01, "\(noise): \(held.accuracy) held, \(plain.accuracy) not, missed \(held.missedSegments)")
        }
    }
}
