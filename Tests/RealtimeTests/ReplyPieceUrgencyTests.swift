import Pipeline
import Testing
@testable import Realtime

/// How soon the local engine wants each piece of a reply made (`LocalEngine.urgency`): the first
/// at once, the rest when the audio ahead of them runs out — so another call's caller, waiting
/// now, is served on the inference lanes before a clause nobody will hear for seconds.
@Suite struct ReplyPieceUrgencyTests {
    let start = ContinuousClock.Instant.now
    let rate = EspeakSynthesizer.sampleRate

    @Test func theFirstPieceIsWantedAtOnce() {
        #expect(LocalEngine.urgency(ofPieceAfter: 0, playingSince: nil, now: start) == .now)
    }

    @Test func aLaterPieceIsWantedWhenTheAudioAheadOfItRunsOut() {
        // 2 s made, 0.5 s of it played: wanted in 1.5 s less the margin to make it in.
        let urgency = LocalEngine.urgency(ofPieceAfter: 2 * rate, playingSince: start, now: start + .milliseconds(500))
        #expect(urgency == .within(.milliseconds(1_500) - LocalEngine.makingMargin))
    }

    @Test func aCallsLastWordsAfterItsHangUpStayBehindEveryLiveCall() {
        BlockingWorkPool.$urgency.withValue(.whenIdle) {
            #expect(LocalEngine.urgency(ofPieceAfter: 2 * rate, playingSince: start, now: start) == .whenIdle)
            #expect(LocalEngine.urgency(ofPieceAfter: 0, playingSince: nil, now: start) == .whenIdle)
        }
    }
}
