import Calls

/// The sixth English held-out set, written on 7 Dec (sixty-ninth session) once the fifth
/// (`fifthHeldOut`) had been run before and after the readings the fourth informed, and before the
/// readings the fifth's misses inform: since then the fifth is a tuning set and this one reports.
/// New wordings of every kind of question, with numbers, names, times and refusals in no prompt,
/// vocabulary or rule and no line of any other persona's (`CalleePersonaTests`). No test requires
/// them to pass; tuning on them makes them tuning personas.
extension CalleePersona {
    static let parentsEvening = ["Are you coming to the parents' evening on Thursday?", "How many children will you bring?"]
    static let driver = ["What's the best number for the driver to call?", "When would you like the sofa delivered?"]
    static let group = ["How many places should we keep for your group?", "Whose name should the reservation be in?"]
    static let downPayment = ["What deposit are you able to put down?", "Shall we text you a receipt?"]
    static let meter = ["Is the meter still in the garage?", "Will someone be home on Tuesday morning?"]

    public static let sixthHeldOut: [CalleePersona] = [
        .init("comes to the parents' evening", parentsEvening, ["Yes, both of us will come.", "Two children."], [(.answered, "yes"), (.answered, "2")]),
        .init("misses the parents' evening", parentsEvening, ["No, I have to work late.", "None, they're at their grandmother's."],
              [(.answered, "no"), (.answered, "0")]),
        .init("a driver's number and a Wednesday", driver,
              ["The best number is eight three two, five five five, zero four one nine.", "Wednesday at eleven in the morning."],
              [(.answered, "+18325550419"), (.answered, "{next wednesday}T11:00")]),
        .init("a mobile and January", driver,
              ["Call my mobile, five one two, five five five, zero seven seven three.", "The eighteenth of January at one in the afternoon."],
              [(.answered, "+15125550773"), (.answered, "{01-18}T13:00")]),
        .init("a number and a quarter past", driver, ["Six zero two, five five five, zero two two eight.", "Tomorrow at a quarter past ten in the morning."],
              [(.answered, "+16025550228"), (.answered, "{today+1}T10:15")]),
        .init("places for four", group, ["Four places, please.", "Put it in the name of Laura Hughes."], [(.answered, "4"), (.answered, "Laura Hughes")]),
        .init("places after a question", group, ["<vague> Is there a discount for groups?", "Six places.", "Ben Carter."],
              [(.answered, "6"), (.answered, "Ben Carter")]),
        .init("a deposit of fifty", downPayment, ["I can put down fifty dollars.", "Yes, a text is fine."], [(.answered, "50 USD"), (.answered, "yes")]),
        .init("a deposit and no receipt", downPayment, ["Three hundred and fifty dollars.", "No, there's no need."],
              [(.answered, "350 USD"), (.answered, "no")]),
        .init("keeps the number", driver, ["I don't hand out my number.", "Don't deliver it, I've changed my mind."], [(.refused, nil), (.refused, nil)]),
        .init("asks where they are calling from", meter, ["<vague> Where are you calling from?", "Yes, it's still there.", "Yes, my husband will be in."],
              [(.answered, "yes"), (.answered, "yes")]),
        .init("the meter moved", meter, ["No, it's in the hallway now.", "No, we'll both be out."], [(.answered, "no"), (.answered, "no")]),
        .init("at the school gates", driver, ["I'm just picking up my son, can you try again this evening?"], [(.pending, nil), (.notAsked, nil)]),
        .init("hangs up on the deposit", downPayment, ["<hangup>"], [(.pending, nil), (.notAsked, nil)]),
        .init("quiet after the places", group, ["Eight places.", "<silence>"], [(.answered, "8"), (.pending, nil)]),
        .init("unsure about the meter", meter, ["<vague> I don't really know where it is.", "<vague> It might be, I'm not certain.", "Yes, someone will be home."],
              [(.unclear, nil), (.answered, "yes")]),
    ]
}
