import Foundation
import Testing
import TestSupport
@testable import Dialogue
@testable import Realtime

@Suite struct ReadBackTests {
    static let now = ISO8601DateFormatter().date(from: "2026-11-26T09:00:00Z")!
    static var utc: Calendar { var c = Calendar(identifier: .gregorian); c.timeZone = TimeZone(identifier: "UTC")!; return c }

    @Test func answersAreSpokenTheWayTheyAreChecked() {
        #expect(ReadBack.spoken("+15551234567", as: .phoneNumber) == "five five five, one two three, four five six seven")
        #expect(ReadBack.spoken("+442079460958", as: .phoneNumber) == "plus four four two, zero seven nine, four six zero, nine five eight")
        #expect(ReadBack.spoken("2026-11-27T14:00", as: .dateTime, now: Self.now, calendar: Self.utc) == "tomorrow, November 27th, at 2 PM")
        #expect(ReadBack.spoken("2026-12-03T10:30", as: .dateTime, now: Self.now, calendar: Self.utc) == "December 3rd, at 10:30 AM")
        #expect(ReadBack.spoken("250 USD", as: .number) == "250 dollars")
        #expect(ReadBack.question("Jane Smith") == "I have Jane Smith. Is that right?")
    }

    /// What is read back reads back into the same value: the agent's words, heard by the caller,
    /// give back what the caller said — and a different value does not.
    @Test(arguments: [
        ("It is five five five, one two three, four five six seven.", "+15551234567", AnswerKind.phoneNumber),
        ("Plus four four, two zero seven, nine four six, zero nine five eight.", "+442079460958", .phoneNumber),
        ("Tomorrow at two.", "2026-11-27T14:00", .dateTime),
        ("Friday at half past ten in the morning.", "2026-11-27T10:30", .dateTime),
        ("My name is Jane Smith.", "Jane Smith", .name),
        ("Seventy dollars, I think.", "70 USD", .number),
        ("About eighteen.", "18", .number),
    ])
    func aReadBackMatchesWhatWasSaid(said: String, summary: String, kind: AnswerKind) {
        let heard = ReadBack.question(ReadBack.spoken(summary, as: kind, now: Self.now, calendar: Self.utc))
        #expect(ReadBack.isReadBack(heard))
        #expect(ReadBack.matches(heard, said: said, now: Self.now, calendar: Self.utc) == true, "\(heard)")
    }

    @Test func aWrongReadBackDoesNotMatch() {
        #expect(ReadBack.matches("I have five five five, one two three, four five six eight. Is that right?",
                                 said: "It is five five five, one two three, four five six seven.") == false)
        #expect(ReadBack.matches("I have James Mith. Is that right?", said: "My name is Jane Smith.") == false)
        #expect(ReadBack.matches("I have tomorrow, November 27, at 10 AM. Is that right?", said: "Tomorrow at two.", now: Self.now, calendar: Self.utc) == false)
        #expect(ReadBack.matches("I have yes. Is that right?", said: "Yes, I can attend.") == nil, "nothing in it is read back")
        #expect(ReadBack.matches("I have seventeen dollars. Is that right?", said: "Seventy dollars, I think.") == false, "a teen for a tens")
        #expect(!ReadBack.isReadBack("Thank you. Does the place need to change?"))
        #expect(ReadBack.isReadBack("I have gained mys in that right.") && ReadBack.isReadBack("I have plus one nine eight, is it rife?"),
                 "as the callee's ear takes it")
        #expect(ReadBack.matches("I have John Parr. Is that right?", said: "My name is John Park.") == true, "sounds the same")
        // A name said bare, or before what the person does, is the caller's name too: it is checked,
        // not met with silence (the callee had nothing to say to it when it was its last line).
        #expect(ReadBack.matches("I have Ana Kovac. Is that right?", said: "Ana Kovac.") == true)
        #expect(ReadBack.matches("I have Tom Rays. Is that right?", said: "Tom Reyes will sign for it.") == false)
        #expect(ReadBack.matches("I have Tom Reyes. Is that right?", said: "Tom Reyes will sign for it.") == true)
        #expect(ReadBack.matches("I have three. Is that right?", said: "Three, please.") == true, "a count before a bare name")
        #expect(ReadBack.matches("I have 250 dollars. Is that right?", said: "About two hundred and fifty dollars.") == true,
                "the amount said, though \"about two\" also reads as a time")
        #expect(ReadBack.matches("I have 25 dollars. Is that right?", said: "About two hundred and fifty dollars.") == false)
        #expect(ReadBack.matches("I have November twenty nine at eleven a.m. Is that right?", said: "Um, the day after tomorrow at eleven.",
                                 now: Self.now, calendar: Self.utc) == false, "the 29th is not the day after tomorrow here (the 28th)")
        #expect(ReadBack.matches("I have November twenty eight at eleven a.m. Is that right?", said: "Um, the day after tomorrow at eleven.",
                                 now: Self.now, calendar: Self.utc) == true, "a day said as a plain number, as the callee heard it")
        #expect(ReadBack.ordinal(1) == "1st" && ReadBack.ordinal(22) == "22nd" && ReadBack.ordinal(13) == "13th" && ReadBack.ordinal(23) == "23rd")
        #expect(ReadBack.soundsAlike("park", "parke") && !ReadBack.soundsAlike("jane", "james") && !ReadBack.soundsAlike("tom", "calm"))
    }
}

extension ReadBackTests {
    /// A teen and the tens that sounds like it ("fifteen", "fifty") are what a phone line, or a
    /// listener, most often swaps — in a number's last two digits, or said as hundreds or thousands.
    @Test func aNumberThatMayBeMisheardHoldsATeenOrATensThatSoundsLikeOne() {
        for number in ["15", "13", "19", "60 USD", "90 EUR", "115 USD", "1500 USD", "40000 USD", "30"] {
            #expect(ReadBack.mayBeMisheard(number), "\(number)")
        }
        for number in ["5", "12", "20", "21", "0", "100", "300 USD", "5000 USD", "2000", "many"] {
            #expect(!ReadBack.mayBeMisheard(number), "\(number)")
        }
    }
}

@Suite struct ReadBackDialogueTests {
    static func dialogue(readBack: Set<AnswerKind> = ReadBack.defaultKinds) -> ScriptedDialogue {
        var context = ConversationContext(purpose: "a visit", questions: ["May I have your name?", "What number can we reach you on?"], displayName: "ABC")
        context.readBack = readBack
        var d = ScriptedDialogue(context: context, now: ReadBackTests.now)
        _ = d.start()
        return d
    }

    @Test func aConfirmedAnswerMovesOn() {
        var d = Self.dialogue()
        #expect(d.caller(said: "My name is Jane Smith.") == .ask(text: "I have Jane Smith. Is that right?", questionIndex: 0))
        #expect(d.caller(said: "Yes, that's right.") == .ask(text: "Thank you. What number can we reach you on?", questionIndex: 1))
        #expect(d.caller(said: "Five five five, one two three, four five six seven.")
                == .ask(text: "I have five five five, one two three, four five six seven. Is that right?", questionIndex: 1))
        guard case .close = d.caller(said: "Correct.") else { Issue.record("did not close"); return }
        #expect(d.tracker.finalAnswers.map(\.status) == [.answered, .answered])
        #expect(d.tracker.finalAnswers.map(\.answerSummary) == ["Jane Smith", "+15551234567"])
    }

    @Test func aCorrectionIsReadBackAndStored() {
        var d = Self.dialogue()
        _ = d.caller(said: "My name is James Mith.")
        #expect(d.caller(said: "No, it's Jane Smith.") == .ask(text: "I have Jane Smith. Is that right?", questionIndex: 0))
        _ = d.caller(said: "Yes.")
        #expect(d.tracker.answers[0].answerSummary == "Jane Smith" && d.tracker.answers[0].status == .answered)
    }

    /// A "no" with the very value read back is no confirmation: the recognizer may have heard the
    /// same wrong twice, and the caller said it was wrong — asked again, as after a plain no.
    @Test func theSameValueAfterANoIsNoConfirmation() {
        var d = Self.dialogue()
        _ = d.caller(said: "My name is John Park.")
        #expect(d.caller(said: "No, my name is John Park.") == .ask(text: "Sorry about that. May I have your name?", questionIndex: 0))
        #expect(d.tracker.answers[0].status == .unclear)
        #expect(d.caller(said: "John Park.") == .ask(text: "I have John Park. Is that right?", questionIndex: 0))
        #expect(d.caller(said: "Yes.") == .ask(text: "Thank you. What number can we reach you on?", questionIndex: 1))
        #expect(d.tracker.answers[0].status == .answered && d.tracker.answers[0].answerSummary == "John Park")
        var twice = Self.dialogue()
        _ = twice.caller(said: "My name is John Park.")
        _ = twice.caller(said: "No, my name is John Park.")
        _ = twice.caller(said: "John Park.")
        _ = twice.caller(said: "No, John Park.")
        #expect(twice.tracker.answers[0].status == .unclear, "rejected at both read-backs: never stored as answered")
    }

    @Test func aPlainNoAsksAgainAndTwoWrongReadBacksLeaveItUnclear() {
        var d = Self.dialogue()
        _ = d.caller(said: "My name is James Mith.")
        #expect(d.caller(said: "No.") == .ask(text: "Sorry about that. May I have your name?", questionIndex: 0))
        #expect(d.tracker.answers[0].status == .unclear && d.tracker.answers[0].answerSummary == nil, "a value the caller said was wrong is not an answer")
        #expect(d.caller(said: "My name is Jane Smyth.") == .ask(text: "I have Jane Smyth. Is that right?", questionIndex: 0))
        #expect(d.caller(said: "No.") == .ask(text: "I'm sorry, let's go on. What number can we reach you on?", questionIndex: 1))
        #expect(d.tracker.answers[0].status == .unclear)
    }

    @Test func aNumberBegunOrWordsThatTrailOffStopShort() {
        var d = ScriptedDialogue(context: ConversationContext(purpose: "a visit", questions: ["What number can we reach you on?"]), now: ReadBackTests.now)
        _ = d.start()
        #expect(d.stopsShort("It's five five five,") && d.stopsShort("It is"))
        #expect(!d.stopsShort("Five five five, one two three, four five six seven.") && !d.stopsShort("I'd rather not say."))
        #expect(d.stopsShort("Plus four four two zero seven nine four six,"), "an international number begun: its country code first")
        #expect(!d.stopsShort("Plus four four two zero seven nine four six zero nine five eight."))
        let name = Self.dialogue()
        #expect(name.stopsShort("My name is") && !name.stopsShort("Five five five,"), "digits stop short only of a number to dial")
    }

    /// Two read-backs turned down: a third value heard is nobody's confirmed answer — left `unclear`
    /// with what was said, not stored as answered.
    @Test func aCorrectionAfterTheSecondReadBackIsLeftUnclear() {
        var d = Self.dialogue()
        _ = d.caller(said: "My name is James Mith.")
        _ = d.caller(said: "No, it's Jane Mist.")
        #expect(d.caller(said: "No, it's Jane Smith.") == .ask(text: "I'm sorry, let's go on. What number can we reach you on?", questionIndex: 1))
        let answer = d.tracker.answers[0]
        #expect(answer.status == .unclear && answer.answerText == "No, it's Jane Smith." && answer.answerSummary == nil,
                "no value the caller turned down is left for an operator to read as the answer")
    }

    @Test func neitherYesNorNoReadsBackOnceMoreThenTheAnswerStands() {
        var d = Self.dialogue()
        _ = d.caller(said: "My name is Jane Smith.")
        #expect(d.caller(said: "Hmm.") == .ask(text: "Sorry, I have Jane Smith. Is that right?", questionIndex: 0))
        #expect(d.caller(said: "Hmm.") == .ask(text: "Thank you. What number can we reach you on?", questionIndex: 1))
        #expect(d.tracker.answers[0].status == .answered)
    }

    @Test func aYesNoAnswerAndAnEmptySettingAreNotReadBack() {
        var d = Self.dialogue(readBack: [])
        #expect(d.caller(said: "My name is Jane Smith.") == .ask(text: "Thank you. What number can we reach you on?", questionIndex: 1))
        var context = ConversationContext(purpose: "m", questions: ["Can you attend?"])
        context.readBack = ReadBack.readableKinds
        var yesNo = ScriptedDialogue(context: context)
        _ = yesNo.start()
        guard case .close = yesNo.caller(said: "Yes.") else { Issue.record("a yes was read back"); return }
    }

    /// In English a number that may be misheard is read back whenever read-backs are on, though
    /// numbers are not among the kinds read back; a correction is read back in turn. Other numbers
    /// are not, nor Korean ones (whose words are not paired so), nor with read-backs off.
    @Test func aNumberThatMayBeMisheardIsReadBack() {
        func dialogue(_ readBack: Set<AnswerKind>, language: String = "en") -> ScriptedDialogue {
            var context = ConversationContext(purpose: "a delivery", questions: ["How many boxes should we send?", "How much is the deposit?"],
                                              language: language)
            context.readBack = readBack
            var d = ScriptedDialogue(context: context, now: ReadBackTests.now)
            _ = d.start()
            return d
        }
        var d = dialogue(ReadBack.defaultKinds)
        #expect(!ReadBack.defaultKinds.contains(.number))
        #expect(d.caller(said: "Fourteen boxes.") == .ask(text: "I have 14. Is that right?", questionIndex: 0))
        #expect(d.caller(said: "No, forty boxes.") == .ask(text: "I have 40. Is that right?", questionIndex: 0))
        #expect(d.caller(said: "Yes.") == .ask(text: "Thank you. How much is the deposit?", questionIndex: 1))
        #expect(d.tracker.answers[0].status == .answered && d.tracker.answers[0].answerSummary == "40" && d.tracker.answers[0].confidence == 1)
        guard case .close = d.caller(said: "Two hundred dollars.") else { Issue.record("two hundred was read back"); return }
        var off = dialogue([])
        #expect(off.caller(said: "Fourteen boxes.") == .ask(text: "Thank you. How much is the deposit?", questionIndex: 1))
        var korean = dialogue(ReadBack.defaultKinds, language: "ko")
        guard case .ask(let next, 1) = korean.caller(said: "열네 개요.") else { Issue.record("a Korean number was read back"); return }
        #expect(!next.contains("14"), "\(next)")
    }

    @Test func theRecognizerIsToldWhatTheQuestionExpects() {
        var d = Self.dialogue()
        #expect(d.expectedWords.isEmpty, "a name's words cannot be known")
        _ = d.caller(said: "My name is Jane Smith.")
        #expect(d.expectedWords.isEmpty, "a name's read-back is checked with the name as often as with yes")
        _ = d.caller(said: "Yes.")
        #expect(d.expectedWords.contains("five") && d.expectedWords.contains("double"))
        _ = d.caller(said: "Five five five, one two three, four five six seven.")
        #expect(d.expectedWords.contains("yes") && d.expectedWords.contains("five"), "a number's read-back waits for yes, no or the digits")
    }
}
