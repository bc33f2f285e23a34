import Testing
@testable import Calls

/// The detector's rules on scripted VAD decisions (20 ms frames); the whole path — espeak-ng
/// personas over real RTP — is `MachineDetectionCallTests` and `make bench` (amd).
@Suite struct AnsweringMachineDetectorTests {
    /// Runs `script` — (milliseconds, speech?) pieces, a beep at `beepAtMs` — and returns every verdict made.
    static func run(_ script: [(Int, Bool)], beepAtMs: Int? = nil, words: (atMs: Int, text: String)? = nil,
                    settings: AnsweringMachineDetector.Settings = .init()) -> [AnsweringMachineDetector.Decision] {
        var detector = AnsweringMachineDetector(settings: settings)
        var decisions: [AnsweringMachineDetector.Decision] = []
        var t = 0
        for (ms, speech) in script {
            for _ in 0..<(ms / 20) {
                t += 20
                if let d = detector.observe(speech: speech, beep: t == beepAtMs) { decisions.append(d) }
                if let words, t == words.atMs, let d = detector.heard(words: words.text) { decisions.append(d) }
            }
        }
        return decisions
    }

    @Test func aShortHelloThenAPauseIsAPerson() {
        let d = Self.run([(400, false), (700, true), (3000, false)])
        #expect(d.map(\.verdict) == [.human] && d[0].atMs == 1900)
    }

    @Test func aLongGreetingIsAMachineBeforeItEnds() {
        let d = Self.run([(300, false), (900, true), (200, false), (900, true), (8000, true)])
        #expect(d.map(\.verdict) == [.machine] && d[0].atMs == 2900 && d[0].reason.contains("longer than 2400 ms"), "\(d)")
    }

    /// "Hello, Tom speaking." (1.6 s in espeak-ng, more with the VAD's hangover) and a pause is a
    /// person under the default 2.4-s threshold; under Asterisk's 1.5 s it was a machine's greeting.
    @Test func aPersonIntroducingThemselvesIsAPersonAndTheThresholdIsSettable() {
        let introduction: [(Int, Bool)] = [(300, false), (1800, true), (2000, false)]
        let d = Self.run(introduction)
        #expect(d.map(\.verdict) == [.human] && d[0].atMs == 2900, "\(d)")
        #expect(Self.run(introduction, settings: .init(greetingMaxMs: 1500)).map(\.verdict) == [.machine])
        // A higher threshold moves the deadline with it: a 3-s greeting and its pause still decide.
        let long = AnsweringMachineDetector.Settings(greetingMaxMs: 4000)
        #expect(long.decideByMs == 5100)
        let d3 = Self.run([(300, false), (3000, true), (2000, false)], settings: long)
        #expect(d3.map(\.verdict) == [.human] && d3[0].atMs == 4100, "\(d3)")
        #expect(AnsweringMachineDetector.Settings(greetingMaxMs: 2400) == .init(), "the default is Twilio's 2400 ms")
    }

    @Test func aBeepIsAMachineAndEndsItsGreeting() {
        var detector = AnsweringMachineDetector()
        for _ in 0..<40 { _ = detector.observe(speech: true, beep: false) }   // 800 ms of "Leave a message"
        #expect(detector.observe(speech: false, beep: true)?.verdict == .machine)
        #expect(detector.greetingIsOver)
    }

    @Test func silenceAndIndecisionAreUnknown() {
        #expect(Self.run([(4000, false)]).map(\.verdict) == [.unknown])
        #expect(Self.run([(4000, false)])[0].atMs == 2500)
        // Speech with short gaps that never adds up to a greeting's length, nor pauses long enough.
        let choppy = Array(repeating: [(200, true), (600, false)], count: 6).flatMap { $0 }
        let d = Self.run(choppy)
        #expect(d.map(\.verdict) == [.unknown] && d[0].atMs == 3500, "\(d)")
    }

    @Test func aLateBeepOrAMachinesWordsChangeTheVerdict() {
        // A short "Hi, it's Sam" and a pause (a person, it seems), then the beep.
        let late = Self.run([(600, true), (1000, false), (2000, false)], beepAtMs: 2400)
        #expect(late.map(\.verdict) == [.human, .machine] && late[1].reason.contains("after the greeting"))
        let words = Self.run([(600, true), (3000, false)], words: (3000, "Sorry, I can't take your call right now"))
        #expect(words.map(\.verdict) == [.human, .machine])
        let korean = Self.run([(600, true), (3000, false)], words: (3000, "지금은 전화를 받을 수 없습니다. 음성 사서함으로 연결됩니다"))
        #expect(korean.last?.verdict == .machine)
        #expect(Self.run([(600, true), (3000, false)], words: (3000, "Yes, speaking.")).map(\.verdict) == [.human])
    }

    @Test func aMachinesGreetingIsOverAfterASilence() {
        var detector = AnsweringMachineDetector()
        for _ in 0..<100 { _ = detector.observe(speech: true, beep: false) }
        #expect(!detector.greetingIsOver)
        for _ in 0..<74 { _ = detector.observe(speech: false, beep: false) }
        #expect(!detector.greetingIsOver)
        _ = detector.observe(speech: false, beep: false)
        #expect(detector.greetingIsOver)
    }
}
