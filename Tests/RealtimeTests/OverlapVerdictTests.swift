import Testing
@testable import Realtime

/// What the recognizer heard over the agent, judged.
@Suite struct OverlapVerdictTests {
    @Test(arguments: ["Mm-hmm.", "mm hmm", "Yeah.", "Okay, okay.", "Right.", "Uh-huh", "I see.", "네.", "네 네", "응", "예."])
    func backchannelsDoNotTakeTheTurn(text: String) {
        #expect(OverlapVerdict.judging(text) == .backchannel(text))
    }

    @Test(arguments: ["", "  ", "Um.", "Ahem", "uh", "음..."])
    func fillersAreNoWords(text: String) {
        #expect(OverlapVerdict.judging(text) == .noWords)
    }

    @Test(arguments: ["No.", "Wait, stop.", "Yeah, but I can't come.", "Okay so what time is it?", "잠깐만요", "I"])
    func otherWordsInterrupt(text: String) {
        #expect(OverlapVerdict.judging(text) == .interruption)
    }

    @Test(arguments: [("Amend them,", true), ("Leave her.", true), ("I", false), ("It's", false), ("Leave her can.", false), ("Wait.", false), ("No.", false), ("Sorry?", false),
                      ("Um.", false), ("Who is this?", false)])
    func anAsideIsOneOrTwoWordsThatBidForNothing(text: String, aside: Bool) {
        #expect(OverlapVerdict.isAside(text) == aside)
    }

    @Test func minimumWordsLetsAShortWordPass() {
        #expect(OverlapVerdict.judging("No.", minimumWords: 2) == .backchannel("No."))
        #expect(OverlapVerdict.judging("No, wait.", minimumWords: 2) == .interruption)
        #expect(OverlapVerdict.judging("Yeah, okay, no.", minimumWords: 2) == .backchannel("Yeah, okay, no."), "backchannel words are not counted")
    }
}
