import Foundation
import Testing
@testable import Dialogue

/// Words around a value that change what it says (informed by the ninth English held-out set's
/// first run, each tested here on sentences no persona says): a day that is the past or a limit
/// is no day offered, "not" setting one thing against another is no no, a count the caller takes
/// back is replaced, a private matter is refused, an answer promised for later is none yet, and
/// "it'll be" introduces a name.
@Suite struct ReplyQualifierTests {
    static func answer(_ reply: String, _ question: String) -> String? { ReplyInterpreterTests.answer(reply, to: question) }

    @Test func aDayInThePastOrALimitIsNoDayOffered() {
        let when = "When could the fitter come round?"
        #expect(Self.answer("We've been without heat since Thursday.", when) == nil)
        #expect(Self.answer("I'm on holiday till Wednesday.", when) == nil)
        #expect(Self.answer("Nobody's in until tomorrow.", when) == nil)
        #expect(Self.answer("He came last Tuesday.", when) == nil)
        #expect(Self.answer("From Thursday, any time.", when) == "2026-11-26", "a day from which the caller is free is offered")
        // Said beside a yes, the past is not taken for the open question's answer.
        let both = ReplyInterpreter(questions: ["Is the boiler still leaking?", "When could the fitter come round?"],
                                    now: ReplyInterpreterTests.sunday, calendar: ReplyInterpreterTests.calendar)
        #expect(both.interpret("Yes, it has been since Friday.", asked: 0, open: [0, 1]) == .answers([0: .init(summary: "yes", confidence: 0.9)]))
    }

    @Test func notSettingOneThingAgainstAnotherIsNoNo() {
        let yesNo = ReplyInterpreter(questions: ["Is your son still in the under-twelves team?"])
        #expect(yesNo.interpret("He's my nephew, not my son.", asked: 0, open: [0]) == .unclear)
        #expect(yesNo.interpret("It's the under-elevens now, not the twelves.", asked: 0, open: [0]) == .unclear)
        let no = ReplyInterpreter.Meaning.answers([0: .init(summary: "no", confidence: 0.9)])
        #expect(yesNo.interpret("He is not a member any more.", asked: 0, open: [0]) == no)
        #expect(yesNo.interpret("Not a chance, he quit.", asked: 0, open: [0]) == no)
        #expect(yesNo.interpret("That's not the team he plays for.", asked: 0, open: [0]) == no)
        #expect(yesNo.interpret("Sadly not the one you mean.", asked: 0, open: [0]) == no, "nothing named before it to set against")
        #expect(yesNo.interpret("Probably not a good idea.", asked: 0, open: [0]) == no)
    }

    @Test func aCountTheCallerTakesBackIsReplaced() {
        let howMany = "How many chairs should we set out?"
        #expect(Self.answer("Seven, no, eight.", howMany) == "8")
        #expect(Self.answer("Twelve. Sorry, fifteen.", howMany) == "15")
        #expect(Self.answer("Thirty dollars, I mean forty.", "How much can you spend?") == "40 USD")
        #expect(Self.answer("Three or rather four.", howMany) == "4")
        #expect(Self.answer("Three or four.", howMany) == nil, "two counts, none taken back")
        #expect(Self.answer("Five chairs and two tables.", howMany) == nil)
    }

    @Test func aPrivateMatterOrAThingNotNeededIsRefused() {
        let account = ReplyInterpreter(questions: ["What is your account number?"])
        #expect(account.interpret("That's between me and my bank.", asked: 0, open: [0]) == .refused)
        #expect(account.interpret("That's my own business, thanks.", asked: 0, open: [0]) == .refused)
        #expect(account.interpret("You don't need it, I'll pay cash.", asked: 0, open: [0]) == .refused)
        let parking = ReplyInterpreter(questions: ["Do you need a parking space?"])
        #expect(parking.interpret("No, we don't need one.", asked: 0, open: [0]) == .answers([0: .init(summary: "no", confidence: 0.9)]),
                "to a yes/no question, a no")
        let spaces = ReplyInterpreter(questions: ["How many parking spaces do you need?"])
        #expect(spaces.interpret("We don't need any.", asked: 0, open: [0]) != .refused, "the caller's own need, not the asker's")
    }

    @Test func anAnswerPromisedForLaterIsNoneYet() {
        let yesNo = ReplyInterpreter(questions: ["Will you renew the lease?"])
        for reply in ["Probably, but I'll let you know.", "Give me a week and I'll tell you.", "I'll get back to you on that."] {
            #expect(yesNo.interpret(reply, asked: 0, open: [0]) == .unclear, "\(reply)")
        }
        for reply in ["Ring me on Thursday, I'll know more.", "Phone me Monday morning."] {
            #expect(yesNo.interpret(reply, asked: 0, open: [0]) == .callBackLater, "\(reply)")
        }
    }

    @Test func itllBeIntroducesAName() {
        let who = "Who should the parcel be addressed to?"
        #expect(Self.answer("It'll be Priti Shah.", who) == "Priti Shah")
        #expect(Self.answer("That will be Omar Haddad, at the front desk.", who) == "Omar Haddad")
        #expect(Self.answer("It'll be Friday.", who) == nil, "a day is nobody's name")
        #expect(Self.answer("It's tomorrow.", who) == nil)
        #expect(Self.answer("It'll be two of us.", who) == nil, "nor is a number")
    }
}
