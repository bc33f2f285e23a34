import Dialogue
import Foundation
import Realtime
import Testing
@testable import Simulation

@Suite struct CalleeConversationTests {
    @Test func scriptLinesAreRead() {
        let line = CalleeLine("<over Mm-hmm.> <vague> <dtmf 12#> Um, <pause 800> tomorrow at two.")
        #expect(line.over == "Mm-hmm." && line.vague && line.keys == "12#")
        #expect(line.segments.map(\.text) == ["Um,", "tomorrow at two."] && line.segments.map(\.pauseAfter) == [800, 0])
        #expect(line.words == "Um, tomorrow at two.")
        #expect(CalleeLine("<hangup>").action == .hangUp && CalleeLine("<silence>").action == .silence)
        let saysThenHangsUp = CalleeLine("<dtmf 1> Yes, I'll be there. <hangup>")
        #expect(saysThenHangsUp.action == .say && saysThenHangsUp.hangsUpAfter && saysThenHangsUp.words == "Yes, I'll be there.")
        #expect(!CalleeLine("Yes, I'll be there.").hangsUpAfter && CalleeLine("Yes. <hangup>") != CalleeLine("Yes."))
        #expect(CalleeLine("Yes.") == CalleeLine("Yes."))
        #expect(CalleeLine("<voice ko> <dtmf 1> 네.").voice == "ko" && CalleeLine("<voice ko> <dtmf 1> 네.").words == "네.")
    }

    @Test func aLineIsSpokenInItsOwnVoice() async throws {
        let callee = try SimulatedCallee(rtpPorts: 40000...40001, tts: try EspeakSynthesizer(voice: "en-us"))
        let english = try #require(await callee.speech(CalleeLine("Guten Tag."), prefix: "", slowly: false))
        let german = try #require(await callee.speech(CalleeLine("<voice de> Guten Tag."), prefix: "", slowly: false))
        #expect(english != german, "the German voice says it differently")
        let hissing = try #require(await callee.speech(CalleeLine("<noise 25> Guten Tag."), prefix: "", slowly: false))
        #expect(CalleeLine("<noise 25> <dtmf 1> Guten Tag.").hiss == 25 && CalleeLine("<noise 25> Guten Tag.").words == "Guten Tag.")
        #expect(hissing.count == english.count && hissing != english, "the same words over a hissing line")
        #expect(await callee.speech(CalleeLine("<noise 25> Guten Tag."), prefix: "", slowly: false) == hissing, "the same hiss every time")
        #expect(await callee.speech(CalleeLine("<voice zz> Guten Tag."), prefix: "", slowly: false) == nil, "no such voice: nothing said")
    }

    @Test func aReadBackIsConfirmedOrCorrectedWithoutUsingUpTheScript() {
        var c = CalleeConversation(script: ["It is five five five, one two three, four five six seven.", "Tomorrow at two."])
        #expect(c.reply(toAgent: "Hello … What number can we reach you on?") == .line(CalleeLine("It is five five five, one two three, four five six seven.")))
        #expect(c.reply(toAgent: "I have plus one one two, three four, five six seven. Is that right?")
                == .line(CalleeLine("It is five five five, one two three, four five six seven."), prefix: "No,", slowly: true))
        #expect(c.reply(toAgent: "I have five five five, one two three, four five six seven. Is that right?") == .line(CalleeLine("Yes, that's right.")))
        #expect(c.reply(toAgent: "Thank you. When would suit you?") == .line(CalleeLine("Tomorrow at two.")))
        #expect(c.reply(toAgent: "Thank you for your time.") == .done)
        var yesNo = CalleeConversation(script: ["Yes, I can attend.", "No."])
        _ = yesNo.reply(toAgent: "Can you attend?")
        #expect(yesNo.reply(toAgent: "Thank you. Is that place to change?") == .line(CalleeLine("No.")), "a yes is never read back: a question")
    }

    @Test func theAgentsUtteranceIsHeardWithoutTheSilenceThatEndedIt() {
        var speech = AgentSpeech()
        speech.append([Int16](repeating: 0, count: 4_000), speechStarted: false)   // before: only the pre-roll stays
        speech.append([Int16](repeating: 900, count: 16_000), speechStarted: true)   // 2 s of speech
        speech.append([Int16](repeating: 0, count: 8_000), speechStarted: false)     // the 1 s that ended it
        let heard = speech.take(endSilence: 8_000)
        #expect(heard.count == 2 * (AgentSpeech.preRoll + 16_000 + AgentSpeech.keptSilence), "16 kHz: pre-roll, speech, 200 ms of the silence")
        #expect(speech.take(endSilence: 8_000).isEmpty, "taken: it starts over")
    }

    @Test func aReaskGetsTheAnswerAgainSlowlyButAVagueLineMovesOn() {
        var c = CalleeConversation(script: ["Yes, I can attend.", "<vague> Maybe.", "No."])
        _ = c.reply(toAgent: "Can you attend?")
        #expect(c.reply(toAgent: "Sorry, I didn't catch that. Can you attend?") == .line(CalleeLine("Yes, I can attend."), slowly: true))
        #expect(c.reply(toAgent: "Thank you. Does the place need to change?") == .line(CalleeLine("<vague> Maybe.")))
        #expect(c.reply(toAgent: "Sorry, I didn't quite get that. Does the place need to change?") == .line(CalleeLine("No.")))
    }

    @Test func theDialoguesOwnReasksAreKnownAsSuch() {
        for reask in [Reask.notCaught, Reask.notUnderstood, Reask.readBackWrong] { #expect(Reask.isReask(reask + " Can you attend?"), "\(reask)") }
        #expect(Reask.isReask("Could you repeat that, please?") && Reask.isReask("Sorry, I didn't slide that fast."), "the opening, its end garbled")
        #expect(!Reask.isReask("That's all right. Does the place need to change?") && !Reask.isReask("Thank you. When would suit you?"))
    }

    @Test func repeatsAreBoundedAndWithoutHearingEveryUtteranceGetsTheNextLine() {
        var c = CalleeConversation(script: ["Yes.", "No."])
        #expect(!c.isListening, "the greeting needs no ear")
        _ = c.reply(toAgent: "Can you attend?")
        #expect(c.isListening)
        for _ in 0..<CalleeConversation.maxRepeats { #expect(c.reply(toAgent: "Sorry, I didn't catch that.") == .line(CalleeLine("Yes."), slowly: true)) }
        #expect(!c.isListening, "repeated enough: whatever comes next gets the next line")
        #expect(c.reply(toAgent: "Sorry, I didn't catch that.") == .line(CalleeLine("No.")), "a person gives up repeating")
        var deaf = CalleeConversation(script: ["Yes.", "No."])
        #expect(deaf.reply(toAgent: nil) == .line(CalleeLine("Yes.")))
        #expect(deaf.reply(toAgent: nil) == .line(CalleeLine("No.")))
        #expect(deaf.reply(toAgent: nil) == .done)
    }
}
