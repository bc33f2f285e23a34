import Foundation
import Pipeline
import Testing
import TestSupport

/// The hard labelled set behind `make bench`'s VAD figures: built as described (mixtures at the
/// SNR they claim, labels where the speech is), scored right (an oracle is perfect, an always-on
/// detector is punished), and what the energy detector must manage on it.
@Suite struct VADTestSetTests {
    static let speech: [[Int16]] = VADTestSet.speechFixtures.compactMap { try? WAVFile.read(Fixtures.audio($0)).samples }

    @Test func mixturesHaveTheSNRTheyClaimAndLabelsWhereTheSpeechIs() async throws {
        let set = try await VADTestSet.shared()
        #expect(Self.speech.count == VADTestSet.speechFixtures.count)
        #expect(set.mixed.count == VADTestSet.noises.count * VADTestSet.snrs.count && set.noiseOnly.count == VADTestSet.noises.count)
        for clip in set.mixed {
            #expect(clip.speech.count == 2, "\(clip.name)")
            let measured = VADTestSet.measuredSNR(clean: clip.clean, mixture: clip.samples, speech: clip.speech)
            #expect(abs(measured - (clip.snrDB ?? .nan)) < 0.5, "\(clip.name): measured \(measured) dB")
        }
        #expect(set.noiseOnly.allSatisfy { $0.speech.isEmpty && $0.samples.count == 20 * 8000 })
        for clip in set.soft {
            let voiced = clip.speech.flatMap { Array(clip.samples[$0]) }
            let dbfs = voiced.levelDBFS
            #expect(abs(dbfs + 38) < 1, "\(clip.name): \(dbfs) dBFS")
        }
    }

    @Test func scoringRewardsAnOracleAndPunishesAnAlwaysOnDetector() async throws {
        let set = try await VADTestSet.shared()
        let clips = set.mixed + set.noiseOnly
        let oracle = VADTestSet.score(clips) { clip in
            var frame = 0, was = false
            return { _ in
                defer { frame += 1 }
                let middle = frame * 160 + 80
                let now = clip.speech.contains { $0.contains(middle) }
                defer { was = now }
                return (now, now && !was)
            }
        }
        #expect(oracle.accuracy == 1 && oracle.falseOnsets == 0 && oracle.missedSegments == 0 && oracle.medianOnsetDelayMilliseconds <= 20)
        let alwaysOn = VADTestSet.score(clips) { _ in
            var first = true
            return { _ in defer { first = false }; return (true, first) }
        }
        #expect(alwaysOn.accuracy < 0.5 && alwaysOn.falseOnsets == clips.count && alwaysOn.missedSegments == 0)
    }

    /// What the energy detector must manage even before a neural one: soft and breathy speech is
    /// heard, and comfort noise alone is not speech.
    @Test func theEnergyDetectorHearsSoftSpeech() async throws {
        let score = VADTestSet.score(try await VADTestSet.shared().soft) { _ in VADTestSet.detector() }
        #expect(score.missedSegments == 0 && score.falseOnsets == 0, "missed \(score.missedSegments), false onsets \(score.falseOnsets)")
    }
}
