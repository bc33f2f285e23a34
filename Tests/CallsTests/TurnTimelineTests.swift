import Testing
@testable import Calls
@testable import Realtime

@Suite struct TurnTimelineTests {
    @Test func aTurnIsTimedFromTheSpeechEndAndClosedByTheFirstAudio() {
        let answered = ContinuousClock.now
        var timeline = TurnTimeline(answeredAt: answered)
        // The greeting: no caller speech yet, so no turn.
        #expect(timeline.firstAudio(item: "greeting", at: answered.advanced(by: .milliseconds(100))) == nil)
        // The caller pauses mid-sentence and goes on: the first speech end gets no turn of its own.
        timeline.speechEnded(at: answered.advanced(by: .seconds(3)))
        timeline.speechEnded(at: answered.advanced(by: .seconds(5)))
        let end = answered.advanced(by: .seconds(5))
        timeline.milestone(.turnEnded, at: end.advanced(by: .milliseconds(250)))
        timeline.transcript(at: end.advanced(by: .milliseconds(300)))
        timeline.milestone(.firstByte(provider: "stt", milliseconds: 280), at: end.advanced(by: .milliseconds(300)))
        timeline.milestone(.replyStarted, at: end.advanced(by: .milliseconds(320)))
        timeline.milestone(.firstByte(provider: "tts", milliseconds: 40), at: end.advanced(by: .milliseconds(360)))
        #expect(timeline.firstAudio(item: "a", at: end.advanced(by: .milliseconds(370))) == 370)
        timeline.firstFrame(item: "a", at: end.advanced(by: .milliseconds(372)))
        timeline.firstFrame(item: "a", at: end.advanced(by: .milliseconds(900)))   // only the first counts
        timeline.interrupted(item: "a", heardMilliseconds: 600, generatedMilliseconds: 2400, at: end.advanced(by: .milliseconds(1000)))
        // Milestones with no open turn (e.g. the closing's TTS) change nothing.
        timeline.milestone(.firstByte(provider: "tts", milliseconds: 99), at: end.advanced(by: .seconds(2)))

        #expect(timeline.turns == [TurnTiming(turn: 1, speechEndedAt: 5, turnEndedMs: 250, transcriptMs: 300, replyStartedMs: 320, firstAudioMs: 370, firstFrameMs: 372,
                                              firstByteMs: ["stt": 280, "tts": 40], interrupted: true, heardMs: 600, generatedMs: 2400)])
    }

    @Test func pricesMakeTheEstimate() {
        var pricing = Pricing()
        pricing.telephonyPerMinute = 0.01
        pricing.sttPerMinute = 0.0043
        pricing.ttsPerMillionCharacters = 15
        pricing.llmPerMillionInputTokens = 0.15
        pricing.llmPerMillionOutputTokens = 0.6
        pricing.realtimePerAudioMinute = 0.06
        var usage = EngineUsage()
        usage.sttSeconds = 90
        usage.ttsCharacters = 2000
        usage.llmInputTokens = 10_000
        usage.llmOutputTokens = 500
        usage.realtimeAudioSeconds = 30
        let cost = pricing.estimate(seconds: 120, usage: usage)
        #expect(abs(cost.telephony - 0.02) < 1e-12 && abs(cost.stt - 0.00645) < 1e-12 && abs(cost.tts - 0.03) < 1e-12)
        #expect(abs(cost.llm - (0.0015 + 0.0003)) < 1e-12 && abs(cost.realtime - 0.03) < 1e-12)
        #expect(abs(cost.total - (0.02 + 0.00645 + 0.03 + 0.0018 + 0.03)) < 1e-12)
    }
}
