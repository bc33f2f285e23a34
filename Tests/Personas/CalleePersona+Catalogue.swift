import Calls

/// The tuning personas (English): the situations the dialogue, the interpreter and the local
/// engine's defaults were tuned on — `make test` runs them through the dialogue and in virtual
/// time, `make bench`'s `personas` suite as real calls. What is reported as a generalising figure
/// comes from the held-out personas (`CalleePersona+HeldOut.swift`), never from these. None of
/// their words belong in `Sources/` (`scripts/check-test-data.py`).
extension CalleePersona {
    public static let meeting = ["Can you attend?", "Does the place need to change?"]
    public static let visit = ["May I have your name?", "What number can we reach you on?", "When would suit you for a visit?"]
    public static let party = ["How many people are coming?", "Do you need parking?"]
    public static let slot = ["Can you attend?", "What time suits you?"]
    public static let budget = ["What is your monthly budget?", "Would you like a call from an advisor?"]

    /// Cooperative callees, refusals, unclear answers, two answers at once, questions back, call-me-later,
    /// silence, hang-ups and the three ways a call is never answered.
    public static let catalogue: [CalleePersona] = [
        .init("cooperative", meeting, ["Yes, I can attend the meeting.", "No, the original location is fine."], [(.answered, "yes"), (.answered, "no")]),
        .init("cooperative with details", visit, ["My name is Jane Smith.", "It is five five five, one two three, four five six seven.", "Tomorrow at two."],
              [(.answered, "Jane Smith"), (.answered, "+15551234567"), (.answered, "{today+1}T14:00")]),
        .init("cooperative count", party, ["Three of us.", "Yes, please."], [(.answered, "3"), (.answered, "yes")]),
        .init("refuses the first", meeting, ["I would rather not answer that.", "No, it can stay."], [(.refused, nil), (.answered, "no")]),
        .init("refuses the second", meeting, ["Yes, I can come.", "I'd prefer not to say."], [(.answered, "yes"), (.refused, nil)]),
        .init("refuses all", meeting, ["No comment.", "I would rather not answer that."], [(.refused, nil), (.refused, nil)]),
        .init("refuses all three", visit, ["I'd rather not say.", "That's private.", "No comment."], [(.refused, nil), (.refused, nil), (.refused, nil)]),
        .init("unclear then clear", meeting, ["<vague> Hmm, I am not sure yet.", "Yes, I can attend.", "No."], [(.answered, "yes"), (.answered, "no")]),
        .init("unclear twice", meeting, ["<vague> Maybe.", "<vague> I don't know.", "No, it's fine."], [(.unclear, nil), (.answered, "no")]),
        .init("answers two at once", slot, ["Yes, and tomorrow at three works best for me."], [(.answered, "yes"), (.answered, "{today+1}T15:00")]),
        .init("answers the other question", slot, ["<vague> Tomorrow at ten in the morning.", "Yes, I can."], [(.answered, "yes"), (.answered, "{today+1}T10:00")]),
        .init("asks who is this", meeting, ["<vague> Who is this?", "Yes, I can attend.", "No."], [(.answered, "yes"), (.answered, "no")]),
        .init("asks who then refuses", meeting, ["<vague> Who is calling?", "I'd rather not say.", "Yes."], [(.refused, nil), (.answered, "yes")]),
        .init("asks to call back later", meeting, ["I'm driving, can you call me back later?"], [(.pending, nil), (.notAsked, nil)]),
        .init("call back after one answer", meeting, ["Yes, I can attend.", "Sorry, I'm in a meeting, call me later."], [(.answered, "yes"), (.pending, nil)]),
        .init("silent", meeting, ["<silence>", "<silence>"], [(.pending, nil), (.notAsked, nil)]),
        .init("unclear then silent", meeting, ["<vague> Um.", "<silence>"], [(.unclear, nil), (.notAsked, nil)]),
        .init("hangs up mid-question", meeting, ["Yes, I can attend.", "<hangup>"], [(.answered, "yes"), (.pending, nil)]),
        .init("hangs up at once", meeting, ["<hangup>"], [(.pending, nil), (.notAsked, nil)]),
        .init("hangs up on the last question", visit, ["I am Tom.", "Two zero two, five five five, zero one nine eight.", "<hangup>"],
              [(.answered, "Tom"), (.answered, "+12025550198"), (.pending, nil)]),
        .init("busy", meeting, ["<busy>"], state: .busy, [(.notAsked, nil), (.notAsked, nil)]),
        .init("rejects", meeting, ["<reject>"], state: .rejected, [(.notAsked, nil), (.notAsked, nil)]),
        .init("no answer", meeting, ["<no_answer>"], state: .noAnswer, [(.notAsked, nil), (.notAsked, nil)]),
        .init("says yes to the name question", visit, ["<vague> Yes, I can attend.", "My name is John Park.", "Five five five, nine eight seven, six five four three.",
                                                         "Next Monday."],
              [(.answered, "John Park"), (.answered, "+15559876543"), (.answered, "{next monday}")]),
        .init("international number", visit, ["It's Maria.", "Plus four four, two zero seven, nine four six, zero nine five eight.",
                                               "Friday at half past ten in the morning."],
              [(.answered, "Maria"), (.answered, "+442079460958"), (.answered, "{next friday}T10:30")]),
        .init("a date in a month", visit, ["This is Anna Berg.", "Five five five, two three four, nine eight seven six.", "March fifth at 3 pm."],
              [(.answered, "Anna Berg"), (.answered, "+15552349876"), (.answered, "{03-05}T15:00")]),
        .init("a bigger count", party, ["Twenty five people.", "No, we will take the train."], [(.answered, "25"), (.answered, "no")]),
        .init("a budget", budget, ["About two hundred and fifty dollars.", "Sure, why not."], [(.answered, "250 USD"), (.answered, "yes")]),
        .init("soft negatives", meeting, ["Not really, sorry.", "I don't think so."], [(.answered, "no"), (.answered, "no")]),
        .init("casual variants", meeting, ["Sure, why not.", "Nope."], [(.answered, "yes"), (.answered, "no")]),
        .init("of course and of course not", meeting, ["Of course.", "Of course not."], [(.answered, "yes"), (.answered, "no")]),
        .init("just a number", party, ["Just two.", "No thanks."], [(.answered, "2"), (.answered, "no")]),
        .init("pauses mid-answer", visit, ["My name is <pause 600> Lisa Chen.", "It's five five five, <pause 600> two one two, four four four four.",
                                           "Um, <pause 600> the day after tomorrow at eleven."],
              [(.answered, "Lisa Chen"), (.answered, "+15552124444"), (.answered, "{today+2}T11:00")]),
        .init("backchannels over the agent", meeting, ["<over Mm-hmm.> Yes, I can attend.", "<over Okay.> No, the place is fine."],
              [(.answered, "yes"), (.answered, "no")]),
        .init("unclear count then clear", party, ["<vague> Hard to say.", "Probably four.", "Yes."], [(.answered, "4"), (.answered, "yes")]),
    ]
}
