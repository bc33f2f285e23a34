import Calls

/// The seventh English held-out set, written on 7 Dec (seventieth session) once the sixth
/// (`sixthHeldOut`) had been run before and after the readings the fifth and the sixth informed,
/// and run only on the server with them: no reading was made from it. New wordings of every kind
/// of question, with numbers, names, times and refusals in no prompt, vocabulary or rule and no
/// line of any other persona's (`CalleePersonaTests`). No test requires them to pass; tuning on
/// them makes them tuning personas.
extension CalleePersona {
    static let plumber = ["Is the leak still coming through the ceiling?", "What time can the plumber come round tomorrow?"]
    static let matinee = ["How many tickets do you need for the matinee?", "Who should we leave them with at the box office?"]
    static let policy = ["How much do you want to spend on the policy each month?", "Would you like the documents by post?"]
    static let surgery = ["Which number should the surgery use to reach you?", "When could you come in for a blood test?"]
    static let readingRoom = ["Are you still using the reading room on Fridays?", "Whose card should the fine go on?"]

    public static let seventhHeldOut: [CalleePersona] = [
        .init("the leak stopped", plumber, ["No, it stopped overnight.", "Tomorrow, half past nine in the morning."],
              [(.answered, "no"), (.answered, "{today+1}T09:30")]),
        .init("the leak and a hang-up", plumber, ["Yes, it's dripping into a bucket.", "<hangup>"], [(.answered, "yes"), (.pending, nil)]),
        .init("tickets for three", matinee, ["Three, please.", "Leave them with Tom Harris."], [(.answered, "3"), (.answered, "Tom Harris")]),
        .init("tickets after a question", matinee, ["<vague> Is the matinee the two o'clock one?", "We need five of them.", "Sarah Lewis will pick them up."],
              [(.answered, "5"), (.answered, "Sarah Lewis")]),
        .init("forty pounds a month", policy, ["About forty pounds a month.", "No, email is fine."], [(.answered, "40 GBP"), (.answered, "no")]),
        .init("won't talk money", policy, ["I'd sooner not discuss money.", "Yes, post them please."], [(.refused, nil), (.answered, "yes")]),
        .init("a surgery number and a Friday", surgery,
              ["You can reach me on seven one eight, five five five, zero three four two.", "Friday morning at eight."],
              [(.answered, "+17185550342"), (.answered, "{next friday}T08:00")]),
        .init("cooking", surgery, ["Sorry, I'm in the middle of cooking, call me back in twenty minutes."], [(.pending, nil), (.notAsked, nil)]),
        .init("the reading room on Fridays", readingRoom, ["Yes, every Friday afternoon.", "Put it on my son's card, Jack Turner."],
              [(.answered, "yes"), (.answered, "Jack Turner")]),
        .init("moved to Saturdays", readingRoom, ["Not any more, I moved to Saturdays.", "Mine, Helen Price."], [(.answered, "no"), (.answered, "Helen Price")]),
        .init("can't tell about the leak", plumber,
              ["<vague> Hard to tell, there's a stain but it's dry.", "<vague> I honestly couldn't say.", "Tomorrow at eleven in the morning."],
              [(.unclear, nil), (.answered, "{today+1}T11:00")]),
        .init("no tickets after all", matinee, ["None, we've changed our plans.", "<silence>"], [(.answered, "0"), (.pending, nil)]),
        .init("a hundred and twenty dollars", policy, ["Somewhere around a hundred and twenty dollars.", "Yes please, by post."],
              [(.answered, "120 USD"), (.answered, "yes")]),
        .init("a Chicago number and a Monday", surgery, ["It's three one two, five five five, zero seven four nine.", "Monday at ten past two in the afternoon."],
              [(.answered, "+13125550749"), (.answered, "{next monday}T14:10")]),
        .init("keeps the card name", readingRoom, ["Yes, most weeks.", "I'd rather not give a name."], [(.answered, "yes"), (.refused, nil)]),
        .init("asks which company", plumber, ["<vague> Sorry, which company is this?", "No, it's been fixed.", "<hangup>"],
              [(.answered, "no"), (.pending, nil)]),
    ]
}
