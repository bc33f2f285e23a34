import Calls

/// The fifth English held-out set, written on 7 Dec (sixty-ninth session) once the fourth
/// (`fourthHeldOut`) had been run before and after that session's first readings, and before the
/// readings its misses informed: since then the fourth is a tuning set and this one reports. New
/// wordings of every kind of question, with numbers, names, times and refusals in no prompt,
/// vocabulary or rule and no line of any other persona's (`CalleePersonaTests`). No test requires
/// them to pass; tuning on them makes them tuning personas.
extension CalleePersona {
    static let quiz = ["Will you be joining us for the quiz night on Friday?", "How many people are in your team?"]
    static let courier = ["On which number can the courier reach you?", "What day and time should the courier arrive?"]
    static let rooms = ["How many rooms would you like to book?", "Who should the booking be made out to?"]
    static let spend = ["How much were you hoping to spend?", "Would you like us to send a quote by email?"]
    static let boiler = ["Is your boiler still under warranty?", "Can our technician use your side entrance?"]

    public static let fifthHeldOut: [CalleePersona] = [
        .init("joins the quiz", quiz, ["Definitely, I'll be there.", "There are five of us."], [(.answered, "yes"), (.answered, "5")]),
        .init("misses the quiz", quiz, ["I'm afraid not this time.", "Seven people."], [(.answered, "no"), (.answered, "7")]),
        .init("a courier number and a Saturday", courier, ["Use nine seven three, five five five, zero one six two.", "Saturday morning at nine."],
              [(.answered, "+19735550162"), (.answered, "{next saturday}T09:00")]),
        .init("a courier number and February", courier,
              ["It's two zero six, five five five, zero eight four seven.", "The third of February at two in the afternoon."],
              [(.answered, "+12065550847"), (.answered, "{02-03}T14:00")]),
        .init("a courier number and an evening", courier, ["Four one five, five five five, zero three nine one.", "Tomorrow at six thirty in the evening."],
              [(.answered, "+14155550391"), (.answered, "{today+1}T18:30")]),
        .init("two rooms", rooms, ["Two rooms, please.", "Make it out to Daniel Chen."], [(.answered, "2"), (.answered, "Daniel Chen")]),
        .init("rooms after a question", rooms, ["<vague> Do the rooms have a sea view?", "Three rooms.", "Sophie Martin."],
              [(.answered, "3"), (.answered, "Sophie Martin")]),
        .init("a budget of eighty", spend, ["Around eighty dollars.", "Yes, email it please."], [(.answered, "80 USD"), (.answered, "yes")]),
        .init("a budget and no quote", spend, ["Two thousand dollars at most.", "No, I'll call you."], [(.answered, "2000 USD"), (.answered, "no")]),
        .init("won't give a budget", spend, ["I'd prefer to keep that to myself.", "Please don't email me."], [(.refused, nil), (.answered, "no")]),
        .init("asks which company", boiler, ["<vague> Sorry, which company is this?", "Yes, it still is.", "Yes, that's fine."],
              [(.answered, "yes"), (.answered, "yes")]),
        .init("no warranty", boiler, ["No, it ran out last year.", "No, please use the front door."], [(.answered, "no"), (.answered, "no")]),
        .init("cooking dinner", courier, ["I'm cooking dinner right now, can you phone back in an hour?"], [(.pending, nil), (.notAsked, nil)]),
        .init("hangs up on the rooms", rooms, ["<hangup>"], [(.pending, nil), (.notAsked, nil)]),
        .init("quiet after the quiz", quiz, ["Yes, count me in.", "<silence>"], [(.answered, "yes"), (.pending, nil)]),
        .init("not sure, then sure", boiler, ["<vague> I'd have to find the paperwork.", "<vague> Possibly, I can't remember.", "Yes, use the side gate."],
              [(.unclear, nil), (.answered, "yes")]),
    ]
}
