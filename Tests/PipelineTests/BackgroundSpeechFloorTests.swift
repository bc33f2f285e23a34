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

    /// `work` on the labelled set off the cooperative pool: Silero over many clips holds a thread
    /// for seconds, and the shared pass's waiting tests need both of the pool's. The expectations
    /// stay on the test's task.
    static func onTheSet<T: Sendable>(_ work: @escaping @Sendable (VADTestSet) throws -> T) async throws -> T {
        let set = try await VADTestSet.shared()
        return try await offThePool { try work(set) }
    }

    @Test func babbleAloneStopsBeingSpeechOnceItsFloorIsLearned() async throws {
        let model = try #require(SileroVADTests.model)
        let learned = 3 * 50   // frames: the window is full after 3 s
        let found = try await Self.onTheSet { set in
            set.noiseOnly.first { $0.noise == "babble" }.map { babble in
                (Self.decisions(babble.samples, Self.detector(model, holding: false)), Self.decisions(babble.samples, Self.detector(model, holding: true)))
            }
        }
        let (plain, held) = try #require(found, "the set has babble alone")
        let without = plain.dropFirst(learned), with = held.dropFirst(learned)
        let share = { (d: ArraySlice<(isSpeech: Bool, started: Bool)>) in Double(d.count { $0.isSpeech }) / Double(d.count) }
        #expect(share(without) > 0.9, "without the floor six talkers are speech (\(share(without)))")
        #expect(share(with) < 0.1 && !with.contains { $0.started }, "held: \(share(with)) of the frames speech, onsets \(with.count { $0.started })")
    }

    /// Nor do they start a turn before the floor is learned: the line's first moment starts none
    /// (it did at every clip's start, Silero alone deciding until then).
    @Test func babbleFromTheLinesFirstMomentStartsNoTurn() async throws {
        let model = try #require(SileroVADTests.model)
        let clips = try await Self.onTheSet { set in
            (set.noiseOnly.filter { $0.noise == "babble" } + set.mixed.filter { $0.noise == "babble" }).map { clip in
                let beforeSpeech = (clip.speech.first?.lowerBound ?? clip.samples.count) / 160 - 5
                let without = Self.decisions(clip.samples, Self.detector(model, holding: false)).prefix(beforeSpeech)
                let with = Self.decisions(clip.samples, Self.detector(model, holding: true)).prefix(beforeSpeech)
                return (name: clip.name, sileroStarts: without.contains { $0.started }, heldStart: with.firstIndex { $0.started })
            }
        }
        #expect(clips.count == 4, "babble alone and at three ratios")
        for clip in clips {
            #expect(clip.sileroStarts, "\(clip.name): Silero alone takes the babble for speech")
            #expect(clip.heldStart == nil, "\(clip.name): held, a turn started at frame \(clip.heldStart ?? -1)")
        }
    }

    /// Babble of a few talkers who pause between sentences (each fixture followed by 1.5 s of
    /// silence, looped) dips nearly to silence and swells to several voices, as the `line` suite's
    /// does. A floor at its quietest 200 ms let half of it through as speech; the floor in its body
    /// holds it, and the caller at 10 dB over it is still heard, every utterance.
    @Test func babbleOfTalkersWhoPauseIsHeldAndTheCallerOverItHeard() async throws {
        let model = try #require(SileroVADTests.model)
        let fixtures = try VADTestSet.speechFixtures.map { try WAVFile.read(Fixtures.audio($0)).samples }
        var random = SeededRandom(seed: 20_261_207)
        let pausing = fixtures.map { $0 + [Int16](repeating: 0, count: 12_000) }
        let raw = LineNoise.babble.samples(count: 20 * 8000, voices: pausing, random: &random)
        // At 10 dB below the fixtures' voiced level, as a line levels its noise.
        let voiced = fixtures.flatMap { f in VADTestSet.voiced(f, offset: 0).map { Array(f[$0]) } ?? [] }
        let gain = (voiced.meanSquare / raw.meanSquare / 10).squareRoot()
        var line = raw.map { Double($0) * gain }
        var spans: [Range<Int>] = []
        for (k, at) in [5, 10, 15].enumerated() {
            let said = fixtures[k + 1], start = at * 8000
            for i in said.indices { line[start + i] += Double(said[i]) }
            spans += [VADTestSet.voiced(said, offset: start)].compactMap { $0 }
        }
        let samples = line.map { Int16(clamping: Int($0.rounded())) }
        @Sendable func decisions(_ floor: BackgroundSpeechFloor.Settings) -> [(isSpeech: Bool, started: Bool)] {
            var configuration = VoiceActivityDetector.Configuration()
            configuration.background = floor
            return Self.decisions(samples, VADTestSet.detector(neural: model, configuration: configuration))
        }
        // The background: after the first second, away from the caller's words (and 0.5 s after them, the hangover).
        let background = { (d: [(isSpeech: Bool, started: Bool)]) -> Double in
            let frames = (50..<d.count).filter { f in !spans.contains { f * 160 >= $0.lowerBound - 800 && f * 160 < $0.upperBound + 4000 } }
            return Double(frames.count { d[$0].isSpeech }) / Double(frames.count)
        }
        var quietest = BackgroundSpeechFloor.Settings()
        (quietest.floorShare, quietest.windowFrames, quietest.inSpeechMarginDB, quietest.voicedShare) = (0, 150, 6, 0.6)   // the floor before 7 Dec
        // Two passes of Silero over 20 s: off the cooperative pool, whose two threads the shared
        // pass's waiting tests need (a sipp call beside such work once met sipp's own timeout).
        let (before, now) = try await offThePool { [quietest] in (decisions(quietest), decisions(BackgroundSpeechFloor.Settings())) }
        #expect(background(before) > 0.3, "a floor at the quietest lets the babble through: \(background(before))")
        #expect(background(now) < 0.1, "held: \(background(now)) of the babble's frames speech")
        for span in spans {
            #expect((span.lowerBound / 160..<span.upperBound / 160).contains { now[$0].isSpeech }, "the caller's words at \(span.lowerBound / 8000) s are heard")
        }
    }

    @Test func theCallerOverBabbleAt10dBIsStillHeard() async throws {
        let model = try #require(SileroVADTests.model)
        let (held, plain) = try await Self.onTheSet { set in
            let clips = set.mixed.filter { $0.noise == "babble" && $0.snrDB == 10 }
            return (VADTestSet.score(clips) { _ in Self.detector(model, holding: true) }, VADTestSet.score(clips) { _ in Self.detector(model, holding: false) })
        }
        #expect(held.missedSegments == 0, "missed \(held.missedSegments) of \(held.segments)")
        #expect(held.accuracy > plain.accuracy + 0.1, "frames right: \(held.accuracy) held, \(plain.accuracy) not")
    }

    /// Soft speech over comfort noise, and speech under a hum or music on hold: the quiet moments
    /// are not voices, so there is no floor and every decision after the first 0.9 s (while a floor
    /// is learned, no speech starts) is the same; none of these clips speaks before then.
    @Test func whereTheBackgroundIsNotVoicesNothingChanges() async throws {
        let model = try #require(SileroVADTests.model)
        let learning = BackgroundSpeechFloor.Settings().learningFrames + 20   // + the smoothing's 10 frames and Silero's settling 10
        let clips = try await Self.onTheSet { set in
            (set.soft + set.mixed.filter { ["hum-50Hz", "hum-60Hz", "music-on-hold"].contains($0.noise) && $0.snrDB != 0 }).map { clip in
                (name: clip.name, held: Self.decisions(clip.samples, Self.detector(model, holding: true)).map(\.isSpeech),
                 plain: Self.decisions(clip.samples, Self.detector(model, holding: false)).map(\.isSpeech))
            }
        }
        #expect(clips.count == 12, "six soft clips, and two ratios of three noises")
        for (name, held, plain) in clips {
            #expect(held[learning...] == plain[learning...], "\(name): \(zip(held[learning...], plain[learning...]).count { $0 != $1 }) frames differ after the learning")
        }
    }

    /// Every other noise at 10 and 20 dB: no speech missed, and at most a point of frames lost
    /// (a street's passing sounds can be speech-like enough to make a floor for a moment).
    @Test func underOtherNoisesTheCallerIsHeardAsBefore() async throws {
        let model = try #require(SileroVADTests.model)
        let scores = try await Self.onTheSet { set in
            VADTestSet.noises.filter { $0 != "babble" }.map { noise in
                let clips = set.mixed.filter { $0.noise == noise && $0.snrDB != 0 }
                return (noise: noise, held: VADTestSet.score(clips) { _ in Self.detector(model, holding: true) },
                        plain: VADTestSet.score(clips) { _ in Self.detector(model, holding: false) })
            }
        }
        for (noise, held, plain) in scores {
            #expect(held.missedSegments == 0 && held.accuracy >= plain.accuracy - 0.01, "\(noise): \(held.accuracy) held, \(plain.accuracy) not, missed \(held.missedSegments)")
        }
    }
}
