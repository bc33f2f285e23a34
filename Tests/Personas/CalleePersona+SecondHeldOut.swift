import Calls

/// The second English held-out set, written on 7 Dec before the readings the first set's misses
/// informed that day ("I'd rather you didn't" as a refusal, "ring me back" as a call-back request).
/// Its first run showed question kinds read wrongly ("When would be a good time to phone you?"
/// taken as asking for a number to dial) and a name read with the words after it; the readings it
/// informed make it a tuning set since, and `thirdHeldOut` reports. New wordings of every kind of
/// question, with numbers, names, times and refusals in no prompt, vocabulary or rule and no line of
/// any other persona's (`CalleePersonaTests`).
extension CalleePersona {
    static let planning = ["Are you able to make the planning session on Wednesday?", "How many guests will you bring?"]
    static let reaching = ["Which number is best for reaching you?", "When would be a good time to phone you?"]
    static let cartons = ["How many cartons should we deliver?", "Who will sign for the delivery?"]
    static let payment = ["What amount would you like to pay today?", "Shall we email you the receipt?"]
    static let renewal = ["Would you like to renew your membership?", "Is your home address still the same?"]

    public static let secondHeldOut: [CalleePersona] = [
        .init("makes the session", planning, ["Sure, count me in.", "Two guests."], [(.answered, "yes"), (.answered, "2")]),
        .init("skips the session", planning, ["Unfortunately not, I'm travelling that week.", "Nobody, I'm not coming."], [(.answered, "no"), (.answered, "0")]),
        .init("an evening number", reaching, ["Try two one two, five five five, zero one eight seven.", "Friday at six in the evening."],
              [(.answered, "+12125550187"), (.answered, "{next friday}T18:00")]),
        .init("a morning number", reaching, ["It's three one two, five five five, zero six six one.", "The day after tomorrow at ten in the morning."],
              [(.answered, "+13125550661"), (.answered, "{today+2}T10:00")]),
        .init("the fifth at noon", reaching, ["Nine one nine, five five five, four four zero three.", "The fifth of January at noon."],
              [(.answered, "+19195554403"), (.answered, "{01-05}T12:00")]),
        .init("a delivery", cartons, ["Eight cartons.", "Maria Lopez will sign."], [(.answered, "8"), (.answered, "Maria Lopez")]),
        .init("a delivery after checking", cartons, ["<vague> Let me check with the warehouse.", "Fifteen, please.", "Tom Becker."],
              [(.answered, "15"), (.answered, "Tom Becker")]),
        .init("a payment", payment, ["Two hundred and fifty dollars.", "Yes, please email it."], [(.answered, "250 USD"), (.answered, "yes")]),
        .init("a payment without a receipt", payment, ["Seventy five dollars.", "No thanks, I don't need one."], [(.answered, "75 USD"), (.answered, "no")]),
        .init("keeps the number to themselves", reaching, ["I'd prefer not to share my number.", "Please don't phone me."], [(.refused, nil), (.refused, nil)]),
        .init("asks who it is", renewal, ["<vague> Sorry, who am I speaking with?", "Yes, renew it.", "Yes, same address."],
              [(.answered, "yes"), (.answered, "yes")]),
        .init("lets it lapse", renewal, ["No, I'll let it lapse.", "No, we moved in the summer."], [(.answered, "no"), (.answered, "no")]),
        .init("driving", reaching, ["I'm driving right now, can you call me in an hour?"], [(.pending, nil), (.notAsked, nil)]),
        .init("hangs up on the payment", payment, ["<hangup>"], [(.pending, nil), (.notAsked, nil)]),
        .init("falls silent", cartons, ["Four cartons.", "<silence>"], [(.answered, "4"), (.pending, nil)]),
        .init("unsure, then sure", renewal, ["<vague> I need to think about it.", "<vague> Maybe, I'm not certain.", "Yes, still the same."],
              [(.unclear, nil), (.answered, "yes")]),
    ]
}
