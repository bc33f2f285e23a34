import Foundation
import Testing
@testable import Dialogue

/// What the offline dialogue understands: yes/no with its variants, names, phone numbers (E.164),
/// days and times (ISO 8601, against a fixed Sunday 2026-11-22), counts and amounts, and replies
/// that answer another question than the one asked.
@Suite struct ReplyInterpreterTests {
    static let calendar: Calendar = {
        var c = Calendar(identifier: .gregorian)
        c.timeZone = TimeZone(identifier: "UTC")!
        return c
    }()
    static let sunday = calendar.date(from: DateComponents(year: 2026, month: 11, day: 22, hour: 12))!

    static func answer(_ reply: String, to question: String, language: String = "en") -> String? {
        let interpreter = ReplyInterpreter(questions: [question], language: language, now: sunday, calendar: calendar)
        guard case .answers(let found) = interpreter.interpret(reply, asked: 0, open: [0]) else { return nil }
        return found[0]?.summary
    }

    @Test func questionsAreReadForWhatTheyAsk() {
        let kinds = ["Can you attend?", "May I have your name?", "What number can we reach you on?", "What is your phone number?",
                     "When would suit you?", "What time works?", "How many people are coming?", "What is your budget?",
                     "Which colour do you prefer?", "What number can we call you back on?"].map(AnswerKind.init(question:))
        #expect(kinds == [.yesNo, .name, .phoneNumber, .phoneNumber, .dateTime, .dateTime, .number, .number, .freeText, .phoneNumber])
    }

    @Test(arguments: [
        ("Yes, I can attend the meeting.", "yes"), ("Yeah sure", "yes"), ("Sure, why not.", "yes"), ("Of course.", "yes"),
        ("Absolutely!", "yes"), ("That works for me.", "yes"), ("I think I can.", "yes"), ("Okay.", "yes"),
        ("No, the original location is fine.", "no"), ("Nope.", "no"), ("Not really.", "no"), ("I don't think so.", "no"),
        ("Of course not.", "no"), ("I'm afraid not.", "no"), ("I can't make it.", "no"), ("Unfortunately not, sorry.", "no"),
        ("No, it can't say.", "no"), ("Yes, I don't know the room yet but yes.", "yes"),
        ("Course not.", "no"), ("Please don't.", "no"), ("Please do.", "yes"),
    ])
    func yesAndNoWithTheirVariants(reply: String, expected: String) {
        #expect(Self.answer(reply, to: "Can you attend?") == expected, "\(reply)")
    }

    /// "Please" is a yes on its own or last, not when it opens a request (a recognizer's "Please
    /// connect me to an app, Remader." for "… an operator" was stored as a yes to "Can you attend?").
    @Test func pleaseOpeningARequestIsNotAYes() {
        #expect(Self.answer("Please connect me to an app, Remader.", to: "Can you attend?") == nil)
        #expect(Self.answer("Please, I can't make it.", to: "Can you attend?") == "no")
        #expect(Self.answer("Please.", to: "Can you attend?") == "yes")
        #expect(Self.answer("Yes, please.", to: "Can you attend?") == "yes")
    }

    /// Words no persona's line made a yes or no: a noun is not an answer.
    @Test func aCourseIsNotAYes() {
        #expect(Self.answer("Near the golf course.", to: "Do you need parking?") == nil)
        #expect(Self.answer("The course starts at nine.", to: "Can you attend?") == nil)
    }

    @Test func refusalsHedgesQuestionsBackAndCallbacksAreNotAnswers() {
        let interpreter = ReplyInterpreter(questions: ["Can you attend?"])
        #expect(interpreter.interpret("I would rather not answer that.", asked: 0, open: [0]) == .refused)
        #expect(interpreter.interpret("No comment.", asked: 0, open: [0]) == .refused)
        #expect(interpreter.interpret("Hmm, I am not sure yet.", asked: 0, open: [0]) == .unclear)
        #expect(interpreter.interpret("uh um", asked: 0, open: [0]) == .unclear)
        #expect(interpreter.interpret("", asked: 0, open: [0]) == .nothing)
        #expect(interpreter.interpret("Who is this?", asked: 0, open: [0]) == .whoIsCalling)
        #expect(interpreter.interpret("I'm driving, call me back later.", asked: 0, open: [0]) == .callBackLater)
        let number = ReplyInterpreter(questions: ["What number can we call you back on?"])
        #expect(number.interpret("You can call me back on 212-555-0123", asked: 0, open: [0]) == .answers([0: .init(summary: "+12125550123", confidence: 0.9)]),
                "the number asked for, not a call later")
        #expect(number.interpret("Call me back later.", asked: 0, open: [0]) == .callBackLater)
        #expect(interpreter.interpret("The conference room on the third floor", asked: 0, open: [0]) == .unclear,
                "a yes/no question needs a yes or a no")
    }

    /// Wordings the first and second held-out personas showed missing (7 Dec), each tested on
    /// other sentences: "I'd rather you didn't …" refuses as "I'd rather not" does, and "please
    /// don't" or "don't call" to a question that is not a yes/no one; "ring me back" and "I'm at
    /// work" ask for a call later as "call me back" and "I'm driving" do.
    @Test func ratherYouDidntRefusesAndRingMeBackIsACallLater() {
        let when = ReplyInterpreter(questions: ["Which evening suits you for the visit?"])
        #expect(when.interpret("Honestly, I'd rather you didn't come round.", asked: 0, open: [0]) == .refused)
        #expect(when.interpret("I would prefer you did not visit.", asked: 0, open: [0]) == .refused)
        #expect(when.interpret("Could you ring me back tomorrow?", asked: 0, open: [0]) == .callBackLater)
        #expect(when.interpret("Sorry, I am at work until five.", asked: 0, open: [0]) == .callBackLater)
        let number = ReplyInterpreter(questions: ["What number can we call you back on?"])
        #expect(number.interpret("Ring me on 646 555 0142.", asked: 0, open: [0]) == .answers([0: .init(summary: "+16465550142", confidence: 0.9)]),
                "a number to ring is the number asked for")
        #expect(when.interpret("Please don't, we're not interested.", asked: 0, open: [0]) == .refused)
        #expect(when.interpret("Do not call this house again.", asked: 0, open: [0]) == .refused)
        let yesNo = ReplyInterpreter(questions: ["Would you like the newsletter?"])
        #expect(yesNo.interpret("Please don't send it.", asked: 0, open: [0]) == .answers([0: .init(summary: "no", confidence: 0.9)]),
                "to a yes/no question it is a no")
        #expect(yesNo.interpret("I'd rather you did, yes.", asked: 0, open: [0]) == .answers([0: .init(summary: "yes", confidence: 0.9)]),
                "rather you did (without not) is no refusal")
    }

    @Test(arguments: [
        ("My name is Jane Smith.", "Jane Smith"), ("It's jane.", "Jane"), ("This is Tom, calling about the invoice.", "Tom"),
        ("John Park speaking.", "John Park"), ("Maria Lopez", "Maria Lopez"), ("You can call me Bob.", "Bob"),
        // The name, then what the person does (the second held-out set stored "… will sign" with it).
        ("Priya will collect it.", "Priya"), ("Ana Kovac can sign for it.", "Ana Kovac"),
    ])
    func names(reply: String, expected: String) {
        #expect(Self.answer(reply, to: "May I have your name?") == expected)
    }

    @Test func yesToTheNameQuestionIsNotAName() {
        #expect(Self.answer("Yes, I can attend.", to: "May I have your name?") == nil)
        #expect(Self.answer("Yes.", to: "May I have your name?") == nil)
    }

    /// A question back is no name ("What?" was stored as the name "What"). (Free text keeps a
    /// question: "What would you like to ask the doctor?" may be answered with one.)
    @Test func aQuestionBackIsNoName() {
        for reply in ["What?", "Pardon?", "Why me?", "Excuse me?"] {
            #expect(Self.answer(reply, to: "May I have your name?") == nil, "\(reply)")
        }
        #expect(Self.answer("Can I come earlier?", to: "What would you like to ask the doctor?") == "Can I come earlier")
    }

    /// What a booking is held under is a name said after "under" (the third held-out set's
    /// "Under …" was stored with the word); the word alone is no name.
    @Test func aNameAfterUnderIsTheName() {
        let question = "Which name is the order under?"
        #expect(Self.answer("It's under Mark Ellis.", to: question) == "Mark Ellis")
        #expect(Self.answer("Under the name of Rivera, please.", to: question) == "Rivera")
        #expect(Self.answer("Under Ana Silva.", to: question) == "Ana Silva")
        #expect(Self.answer("Under.", to: question) == nil)
    }

    /// Whom a thing is made out to is a name (the fifth held-out set's "Make it out to …" was left
    /// unclear); making something out alone names nobody.
    @Test func aNameAfterMadeOutToIsTheName() {
        let question = "Who should the invoice be addressed to?"
        #expect(Self.answer("Make it out to Priya Nair.", to: question) == "Priya Nair")
        #expect(Self.answer("It should be made out to Okafor.", to: question) == "Okafor")
        #expect(Self.answer("Make it out to.", to: question) == nil)
    }

    /// Not knowing, or not for certain, answers nothing (the fifth held-out set's "Possibly. I can't
    /// remember." was stored as a no, for its "can't"): a hedging word, or a verb of knowing negated,
    /// with a word like "really" between. Knowing is no hedge, and a plain no or yes said first stays.
    @Test func notKnowingIsNoAnswer() {
        let yesNo = ReplyInterpreter(questions: ["Did the engineer leave a card?"])
        for reply in ["Perhaps, I'd have to check.", "I honestly can't recall.", "I really couldn't tell you.", "I'm not entirely sure.", "Couldn't tell you, I don't remember.",
                      "It might have been, I'm not certain.", "I'm not the one who books the repairs.", "You'd have to ask my son, he was in."] {
            #expect(yesNo.interpret(reply, asked: 0, open: [0]) == .unclear, "\(reply)")
        }
        let no = ReplyInterpreter.Meaning.answers([0: .init(summary: "no", confidence: 0.9)])
        let yes = ReplyInterpreter.Meaning.answers([0: .init(summary: "yes", confidence: 0.9)])
        #expect(yesNo.interpret("I can't, I know.", asked: 0, open: [0]) == no)
        #expect(yesNo.interpret("I know he did, yes.", asked: 0, open: [0]) == yes)
        #expect(yesNo.interpret("No, I don't remember one.", asked: 0, open: [0]) == no)
        #expect(yesNo.interpret("I'm sure he did.", asked: 0, open: [0]) == yes)
    }

    /// A reply alone is a name only when its words are written alike: a recognizer writes a name
    /// capitalised and other words lower-case ("Tessa Grey, honestly." is a name and something
    /// else, not "Tessa Grey Honestly"); a lower-case particle and an all-lower-case recognizer
    /// are no obstacle.
    @Test func aNameAloneIsWordsWrittenAlike() {
        let question = "Who should we ask for at reception?"
        #expect(Self.answer("Tessa Grey, honestly.", to: question) == nil)
        #expect(Self.answer("Maybe tomorrow.", to: question) == nil)
        #expect(Self.answer("Tessa Grey.", to: question) == "Tessa Grey")
        #expect(Self.answer("Bram van Dijk.", to: question) == "Bram Van Dijk")
        #expect(Self.answer("tessa grey", to: question) == "Tessa Grey")
        #expect(Self.answer("My name is Tessa Grey, honestly.", to: question) == "Tessa Grey")
        #expect(Self.answer("\"'This is Omar Haddad.'\"", to: question) == "Omar Haddad", "quotation marks are no part of a word")
    }

    /// Whose it is names nobody (the seventh held-out set's "Mine, Helen Price." was stored as
    /// "Mine Helen Price"): asked again rather than stored with the pronoun.
    @Test func aPossessiveIsNoName() {
        let question = "Whose name goes on the parcel?"
        #expect(Self.answer("Mine, Omar Haddad.", to: question) != "Mine Omar Haddad")
        #expect(Self.answer("Ours.", to: question) == nil)
        #expect(Self.answer("It's his, Peter Novak.", to: question) != "His Peter Novak")
        #expect(Self.answer("Peter Novak.", to: question) == "Peter Novak")
    }

    /// Keeping a thing private refuses a question that is not a yes/no one ("I'd rather keep my
    /// number private" was left unclear); keeping "a private room" says nothing of the kind, and to
    /// a yes/no question "keep it private" may be the answer.
    @Test func keepingItPrivateRefuses() {
        let contact = ReplyInterpreter(questions: ["Where can we send the invoice?"])
        #expect(contact.interpret("I'll keep my address private, thanks.", asked: 0, open: [0]) == .refused)
        #expect(contact.interpret("I'd like to keep that to myself.", asked: 0, open: [0]) == .refused)
        #expect(contact.interpret("We keep a private office on the second floor.", asked: 0, open: [0]) != .refused)
        let yesNo = ReplyInterpreter(questions: ["Shall we keep your details on file?"])
        #expect(yesNo.interpret("Yes, but keep them private.", asked: 0, open: [0]) == .answers([0: .init(summary: "yes", confidence: 0.9)]))
    }

    /// Wordings the fourth held-out set showed missing (7 Dec), each tested on other sentences: a
    /// call asked for at another time by any of its verbs is a call later ("Could you ring
    /// tomorrow?" had its "tomorrow" stored as the next question's answer); a negated call ("Don't
    /// call me back") is no call later but a decline; not sharing a thing, or not giving it out,
    /// refuses a question that is not a yes/no one ("That's not something I'll share" was left unclear).
    @Test func aCallAskedForLaterByAnyVerbAndNotSharingIt() {
        let visit = ReplyInterpreter(questions: ["What is your account number?", "When should the fitter visit?"])
        for reply in ["Sorry, the baby's asleep, can you phone tomorrow?", "Try me later, I'm on the train.", "Could you ring us in an hour?",
                      "Phone me back after lunch."] {
            #expect(visit.interpret(reply, asked: 0, open: [0, 1]) == .callBackLater, "\(reply)")
        }
        // "Try again": informed by the sixth held-out set ("Can you try again this evening?" had its evening stored as the next answer).
        #expect(visit.interpret("Wrong moment, call again next week.", asked: 0, open: [0, 1]) == .callBackLater)
        #expect(visit.interpret("Don't call again.", asked: 1, open: [1]) == .refused)
        #expect(visit.interpret("Sorry, could you try again?", asked: 0, open: [0, 1]) != .callBackLater, "the question again, not a call")
        #expect(visit.interpret("Busy now, try again on Friday morning.", asked: 0, open: [0, 1]) == .callBackLater)
        #expect(visit.interpret("Don't call me back, I'm not interested.", asked: 1, open: [1]) == .refused)
        #expect(visit.interpret("Please never ring me back.", asked: 1, open: [1]) == .refused)
        #expect(visit.interpret("A quick call tomorrow at ten works.", asked: 1, open: [1]) != .callBackLater, "a call as a noun")
        #expect(visit.interpret("I'll try to come back tomorrow.", asked: 1, open: [1]) != .callBackLater)
        let account = ReplyInterpreter(questions: ["What is your account number?"])
        #expect(account.interpret("I won't share that over the phone.", asked: 0, open: [0]) == .refused)
        #expect(account.interpret("We don't give that out to callers.", asked: 0, open: [0]) == .refused)
        #expect(account.interpret("I never hand that out, sorry.", asked: 0, open: [0]) == .refused)
        #expect(account.interpret("We don't give our details to callers.", asked: 0, open: [0]) == .refused)
        #expect(account.interpret("I'll give my account number, it's 4471.", asked: 0, open: [0]) != .refused)
        let yesNo = ReplyInterpreter(questions: ["May we share your details with the installer?"])
        #expect(yesNo.interpret("No, don't share them.", asked: 0, open: [0]) == .answers([0: .init(summary: "no", confidence: 0.9)]))
    }

    @Test(arguments: [
        ("Five five five, one two three, four five six seven.", "en", "+15551234567"),
        ("555-123-4567", "en", "+15551234567"),
        ("It's two zero two, double five five, zero one nine eight.", "en", "+12025550198"),
        ("Plus four four, two zero seven, nine four six, zero nine five eight.", "en", "+442079460958"),
        ("+44 207 946 0958", "en", "+442079460958"),
        ("zero one zero, one two three four, five six seven eight", "ko", "+821012345678"),
        ("oh one oh, one two three four, five six seven eight", "ko", "+821012345678"),
    ])
    func phoneNumbersInE164(reply: String, language: String, expected: String) {
        #expect(Self.answer(reply, to: "What number can we reach you on?", language: language) == expected)
    }

    /// A digit too many or too few is a number misheard: not stored, asked again.
    @Test func aNumberThatCannotBeDialledIsNoPhoneNumber() {
        #expect(Self.answer("one two three", to: "What is your phone number?") == nil)
        #expect(Self.answer("one two three, four five six seven", to: "What is your phone number?") == nil, "seven digits: no North American number")
        #expect(Self.answer("two one two, five five five, zero one two three four", to: "What is your phone number?") == nil, "eleven digits")
        #expect(Self.answer("zero one two, five five five, zero one two three", to: "What is your phone number?") == nil, "no area code starts with 0")
        #expect(Self.answer("zero one zero, two three four five, six three two nine zero", to: "What is your phone number?", language: "ko") == nil,
                "a Korean mobile number has eleven digits")
        #expect(Self.answer("zero two, three four five, six seven eight nine", to: "What is your phone number?", language: "ko") == "+8223456789",
                "a Seoul number has nine or ten")
    }

    /// Words are words: what one synthetic voice's digits were misheard as is not read as digits.
    @Test func wordsThatSoundLikeDigitsStayWords() {
        #expect(Self.answer("Any time, two one two, five five five, zero one two three.", to: "What number can we reach you on?") == "+12125550123")
        #expect(Self.answer("Tomorrow at that time.", to: "What number can we reach you on?") == nil)
        #expect(Self.answer("Two Nero two, five five five Nero one nine eight", to: "What number can we reach you on?") != "+12025550198")
        #expect(Self.answer("It is time time time one two three four.", to: "What number can we reach you on?") == nil,
                "four digits are no phone number, whatever the words before them")
    }

    @Test(arguments: [
        ("Tomorrow at two.", "2026-11-23T14:00"), ("tomorrow at 2 pm", "2026-11-23T14:00"), ("Next Monday.", "2026-11-23"),
        ("Friday at half past ten in the morning.", "2026-11-27T10:30"), ("The day after tomorrow at noon", "2026-11-24T12:00"),
        ("March fifth at 3 pm.", "2027-03-05T15:00"), ("the 5th of December", "2026-12-05"), ("Sunday", "2026-11-29"),
        ("this Sunday at 9:15", "2026-11-22T09:15"), ("At two thirty", "14:30"), ("around 11 am", "11:00"), ("10am", "10:00"),
        ("today at quarter to five", "2026-11-22T16:45"), ("Tuesday at eight in the evening", "2026-11-24T20:00"),
        ("Tomorrow, three.", "2026-11-23T15:00"),
        ("Tomorrow, two people.", "2026-11-23"), ("Friday, four of us.", "2026-11-27"),
        ("Monday ten thirty", "2026-11-23T10:30"), ("Yes, and to-morrow at three works best for me.", "2026-11-23T15:00"),
        ("November twenty nine at eleven a.m.", "2026-11-29T11:00"), ("December 3rd, at 10:30 AM", "2026-12-03T10:30"),
    ])
    func daysAndTimesInISO8601(reply: String, expected: String) {
        #expect(Self.answer(reply, to: "When would suit you?") == expected)
    }

    /// Minutes said past, after or to an hour (the seventh held-out set's "Monday at ten past two in
    /// the afternoon" was stored as 22:00); a range said with "to" is no such time.
    @Test func minutesPastOrToTheHour() {
        let when = "When would suit you?"
        #expect(Self.answer("Thursday at ten past four in the afternoon.", to: when) == "2026-11-26T16:10")
        #expect(Self.answer("Tomorrow, ten after nine in the morning.", to: when) == "2026-11-23T09:10")
        #expect(Self.answer("Tuesday, twenty five to six.", to: when) == "2026-11-24T17:35")
        #expect(Self.answer("Tomorrow at seven minutes past eleven a.m.", to: when) == "2026-11-23T11:07")
        #expect(Self.answer("Two to three tomorrow.", to: when)?.contains(":58") != true)
    }

    /// A clock time is no count, and "one" after one ("the eight o'clock one") is a pronoun (the
    /// seventh held-out set's "Is the matinee the two o'clock one" was stored as a count of 2).
    @Test func aClockTimeIsNoCount() {
        let howMany = "How many seats do you need?"
        #expect(Self.answer("Is that for the eight o'clock one?", to: howMany) == nil)
        #expect(Self.answer("The 7 pm showing, four seats.", to: howMany) == "4")
        #expect(Self.answer("Four, for the three o'clock.", to: howMany) == "4")
    }

    /// A month whose day is not read is no time alone (the sixth held-out set's "the eight-eenth of
    /// January at one in the afternoon" was stored as 13:00): asked again. "May" as a verb is no month.
    @Test func aMonthWithoutItsDayIsNoTimeAlone() {
        #expect(Self.answer("Sometime in March at four.", to: "When would suit you?") == nil)
        #expect(Self.answer("The umpteenth of June, at nine.", to: "When would suit you?") == nil)
        #expect(Self.answer("It may be best at four.", to: "When would suit you?") == "16:00")
        #expect(Self.answer("March the ninth at four in the afternoon.", to: "When would suit you?") == "2027-03-09T16:00")
    }

    @Test(arguments: [
        ("Three of us.", "3"), ("Twenty five people.", "25"), ("a hundred and fifty", "150"), ("Just 12.", "12"),
        ("About two hundred and fifty dollars.", "250 USD"), ("forty euros", "40 EUR"), ("Nobody, actually.", "0"),
        ("Amount two hundred and fifty knollars.", "250"), ("The hundred and forty dollars you quoted.", "140 USD"),
    ])
    func countsAndAmounts(reply: String, expected: String) {
        #expect(Self.answer(reply, to: "How many people are coming?") == expected)
    }

    /// A reply holding two counts gives none an operator could act on ("two or three", a range, a
    /// count split in parts): asked again, not stored as the first. The same count said twice is
    /// one; a number struck out ("not fourteen") is none; a number written with a thousands
    /// separator is one number.
    @Test func twoCountsInOneReplyAreNoCount() {
        let howMany = "How many chairs should we set out?"
        #expect(Self.answer("Two or three, I reckon.", to: howMany) == nil)
        #expect(Self.answer("Somewhere between forty and fifty dollars.", to: "How much can you spend?") == nil)
        #expect(Self.answer("Two adults and one child.", to: howMany) == nil)
        #expect(Self.answer("Eight. Eight chairs.", to: howMany) == "8")
        #expect(Self.answer("Not thirteen, thirty.", to: howMany) == "30")
        #expect(Self.answer("It came to 1,250 dollars.", to: "How much can you spend?") == "1250 USD")
    }

    /// A date reply holding a number its time does not explain is a time not read ("Friday, half
    /// six" is no Friday alone) or a day not read (a time of no day): asked again rather than
    /// stored as the part that was read. A month's day is the day's number, a count ("three of
    /// us", "six guests") is a count; and a count beside a time is no count of the time's number.
    @Test func aNumberTheTimeDoesNotExplainIsNoDateOrTime() {
        let when = "When would suit you?"
        #expect(Self.answer("Friday, half six.", to: when) == nil)
        #expect(Self.answer("The day after tomorrow, one in the afternoon.", to: when) == nil)
        #expect(Self.answer("Yes, and tomorrow have three work smears for me.", to: when) == nil, "a time said, not read: no day alone")
        #expect(Self.answer("Two weeks from Friday.", to: when) == nil, "weeks are not read: not Friday")
        #expect(Self.answer("Tuesday at ten, for three of us.", to: when) == "2026-11-24T10:00", "a count beside the time")
        #expect(Self.answer("Saturday, six guests.", to: when) == "2026-11-28")
        #expect(Self.answer("Friday at half past six.", to: when) == "2026-11-27T18:30")
        #expect(Self.answer("Monday at 7:30 pm.", to: when) == "2026-11-23T19:30")
        #expect(Self.answer("March the ninth at four in the afternoon.", to: when) == "2027-03-09T16:00")
        #expect(Self.answer("Any time on Wednesday.", to: when) == "2026-11-25")
        #expect(Self.answer("Is the blue one free at noon?", to: when) == "12:00")
        let howMany = "How many chairs should we set out?"
        #expect(Self.answer("Two, for the show at eight.", to: howMany) == "2")
        #expect(Self.answer("About ten dollars.", to: "How much can you spend?") == "10 USD")
        #expect(Self.answer("Around eight, I think.", to: howMany) == "8")
    }

    /// "One" after "the", "that" … is a pronoun ("the blue one"), not a count of one: such a reply
    /// holds no count (asked again, not stored as 1); a count said beside it still counts.
    @Test func aPronounOneIsNoCount() {
        #expect(Self.answer("We liked the blue one.", to: "How many people are coming?") == nil)
        #expect(Self.answer("Which one do you mean?", to: "How many people are coming?") == nil)
        #expect(Self.answer("Just one.", to: "How many people are coming?") == "1")
        #expect(Self.answer("One of us.", to: "How many people are coming?") == "1")
        #expect(Self.answer("That one, and two more.", to: "How many people are coming?") == "2")
    }

    @Test func aReplyThatAnswersAnotherQuestionIsRecognised() {
        let interpreter = ReplyInterpreter(questions: ["Can you attend?", "What time suits you?"], now: Self.sunday, calendar: Self.calendar)
        #expect(interpreter.interpret("Tomorrow at ten in the morning.", asked: 0, open: [0, 1])
            == .answers([1: .init(summary: "2026-11-23T10:00", confidence: 0.8)]))
        #expect(interpreter.interpret("Yes, and tomorrow at three works best.", asked: 0, open: [0, 1])
            == .answers([0: .init(summary: "yes", confidence: 0.9), 1: .init(summary: "2026-11-23T15:00", confidence: 0.8)]))
        let inbound = ReplyInterpreter(questions: ["May I have your name?", "Can you attend?"])
        #expect(inbound.interpret("Yes, I can attend.", asked: 0, open: [0, 1]) == .unclear,
                "a yes/no answer is not taken for another yes/no question unprompted")
    }
}
