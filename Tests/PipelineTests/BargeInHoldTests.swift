import Testing
@testable import Pipeline

/// Speech over the agent with an engine that judges it by its words: held, not cut, and the
/// pacer keeps every held frame for when the agent plays on.
@Suite struct BargeInHoldTests {
    /// `speechFrames` 20 ms frames of speech (the first one the VAD's onset), then one of silence.
    static func decisions(speechFrames: Int) -> [VoiceActivityDetector.Decision] {
        (0..<speechFrames).map {
            VoiceActivityDetector.Decision(isSpeech: true, frameIsSpeechLike: true, event: $0 == 0 ? .speechStarted : nil, speechMilliseconds: ($0 + 1) * 20)
        } + [VoiceActivityDetector.Decision(isSpeech: false, frameIsSpeechLike: false, event: .speechEnded, speechMilliseconds: 0)]
    }

    static let playing = PlaybackTracker.Snapshot(currentItem: "greeting", currentItemPlayedMilliseconds: 400,
                                                  currentItemGeneratedMilliseconds: 3000, pendingMilliseconds: 2600)

    /// (frame index, action) for every action the controller asked for.
    static func run(_ controller: inout BargeInController, _ decisions: [VoiceActivityDetector.Decision],
                    playback: PlaybackTracker.Snapshot = playing) -> [(Int, BargeInController.Action)] {
        decisions.enumerated().flatMap { n, d in controller.process(d, playback: playback).map { (n, $0) } }
    }

    @Test func withoutAJudgeSpeechOverTheAgentCutsItAt200Milliseconds() {
        var controller = BargeInController()
        let actions = Self.run(&controller, Self.decisions(speechFrames: 30))
        #expect(actions.map(\.0) == [9, 9, 9], "cut at the 10th frame (200 ms)")
        #expect(actions.map(\.1) == [.flushOutbound, .clearLeg, .interruptEngine(item: "greeting", playedMilliseconds: 400)])
    }

    @Test func aJudgedOverlapIsAnnouncedAtOnsetAndHeldAtItsLength() {
        var controller = BargeInController(holdMilliseconds: 500)
        let actions = Self.run(&controller, Self.decisions(speechFrames: 40))
        #expect(actions.map(\.0) == [0, 24], "onset, then the hold at the 25th frame (500 ms)")
        #expect(actions.map(\.1) == [.overlapStarted, .holdOutbound], "never a cut: the verdict decides")
    }

    /// A phone menu talking over the agent's key tone: the press plays out, judged or not.
    @Test func speechOverAKeyToneNeitherCutsNorHoldsIt() {
        let tone = PlaybackTracker.Snapshot(currentItem: PlaybackTracker.keyToneItem("2"), currentItemPlayedMilliseconds: 20,
                                            currentItemGeneratedMilliseconds: 100, pendingMilliseconds: 80)
        for hold in [nil, 500] as [Int?] {
            var controller = BargeInController(holdMilliseconds: hold)
            #expect(Self.run(&controller, Self.decisions(speechFrames: 40), playback: tone).isEmpty)
        }
    }

    @Test func shortSpeechOverTheAgentNeverStopsIt() {
        var controller = BargeInController(holdMilliseconds: 500)
        let actions = Self.run(&controller, Self.decisions(speechFrames: 20) + Self.decisions(speechFrames: 20))
        #expect(actions.map(\.1) == [.overlapStarted, .overlapStarted], "two 400 ms backchannels: judged, not held")
    }

    @Test func theVADsHangoverDoesNotCountTowardsTheHold() {
        var controller = BargeInController(holdMilliseconds: 500)
        // 420 ms voiced ("okay"), then the 200 ms the VAD still calls speech before its end.
        let decisions = (0..<31).map { n in
            VoiceActivityDetector.Decision(isSpeech: true, frameIsSpeechLike: n < 21, event: n == 0 ? .speechStarted : nil, speechMilliseconds: (n + 1) * 20)
        }
        #expect(Self.run(&controller, decisions).map(\.1) == [.overlapStarted])
    }

    @Test func speechThatBeganBeforeTheAgentSpokeIsCutAsBefore() {
        var controller = BargeInController(holdMilliseconds: 500)
        let silent = PlaybackTracker.Snapshot(currentItem: nil, currentItemPlayedMilliseconds: 0, currentItemGeneratedMilliseconds: 0, pendingMilliseconds: 0)
        let decisions = Self.decisions(speechFrames: 30)
        var actions: [BargeInController.Action] = []
        for (n, d) in decisions.enumerated() { actions += controller.process(d, playback: n < 5 ? silent : Self.playing) }
        #expect(actions == [.flushOutbound, .clearLeg, .interruptEngine(item: "greeting", playedMilliseconds: 400)],
                "not an overlap (no engine was told at onset): nothing would release a hold")
    }

    @Test func aHeldPacerSendsNothingAndKeepsEveryFrameInOrder() async {
        let pacer = PacerTests.makePacer()
        await PacerTests.queue(pacer, frames: 0..<10, item: "a")
        var sent: [Int] = []
        func tick() { pacer.tick { if case .audio(let n, _) = $0 { sent.append(n) } } }
        for _ in 0..<3 { tick() }
        pacer.hold()
        for _ in 0..<20 { tick() }
        #expect(sent == [0, 1, 2] && pacer.isHeld)
        #expect(pacer.playback.snapshot.isPlaying, "held audio is still the agent's, pending")
        pacer.release()
        for _ in 0..<10 { tick() }
        #expect(sent == Array(0..<10), "played on from the frame where it stopped")
    }

    @Test func aHoldNobodyReleasesEndsByItself() async {
        let pacer = PacerTests.makePacer()
        await PacerTests.queue(pacer, frames: 0..<2, item: "a")
        pacer.hold()
        var sent = 0
        for _ in 0..<Pacer<Int>.maximumHoldTicks { pacer.tick { if case .audio = $0 { sent += 1 } } }
        #expect(sent == 0)
        pacer.tick { if case .audio = $0 { sent += 1 } }
        #expect(sent == 1 && !pacer.isHeld)
    }
}
