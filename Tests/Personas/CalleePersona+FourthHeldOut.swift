import Calls

/// The fourth English held-out set, written on 7 Dec (sixty-ninth session) before the readings the
/// third set's misses informed that day: since then the third set (`thirdHeldOut`) is a tuning set
/// and this one reports. New wordings of every kind of question, with numbers, names, times and
/// refusals in no prompt, vocabulary or rule and no line of any other persona's
/// (`CalleePersonaTests`). No test requires them to pass; tuning on them makes them tuning personas.
extension CalleePersona {
    static let openEvening = ["Can you come to the open evening next Tuesday?", "How many family members are coming along?"]
    static let engineer = ["What number should the engineer call when he arrives?", "When should the engineer come round?"]
    static let dinner = ["How many seats should we hold for you?", "What name is the reservation under?"]
    static let instalment = ["How much would you like to pay each month?", "Do you want a text when the payment goes through?"]
    static let collection = ["Is the collection on Monday still okay for you?", "Do you still live at the address we have?"]

    public static let fourthHeldOut: [CalleePersona] = [
        .init("comes to the open evening", openEvening, ["Yes, we'll be there.", "There will be four of us."], [(.answered, "yes"), (.answered, "4")]),
        .init("skips the open evening", openEvening, ["No, we can't make it, sorry.", "None, we're not coming."], [(.answered, "no"), (.answered, "0")]),
        .init("an engineer's number and a January morning", engineer,
              ["Call six one seven, five five five, zero two four nine.", "The twelfth of January at eight in the morning."],
              [(.answered, "+16175550249"), (.answered, "{01-12}T08:00")]),
        .init("a landline and an afternoon", engineer,
              ["The landline is seven one eight, five five five, zero five five three.", "The day after tomorrow at three in the afternoon."],
              [(.answered, "+17185550553"), (.answered, "{today+2}T15:00")]),
        .init("a number and around eleven", engineer, ["Eight one five, five five five, zero seven one four.", "Tomorrow around eleven in the morning."],
              [(.answered, "+18155550714"), (.answered, "{today+1}T11:00")]),
        .init("a table for six", dinner, ["We need six seats.", "It's under Patel."], [(.answered, "6"), (.answered, "Patel")]),
        .init("a table after a question", dinner, ["<vague> Is there parking nearby?", "Just the two of us.", "Book it for Helen Ward."],
              [(.answered, "2"), (.answered, "Helen Ward")]),
        .init("a monthly amount", instalment, ["Forty dollars a month.", "Yes, send me a text."], [(.answered, "40 USD"), (.answered, "yes")]),
        .init("a bigger amount and no text", instalment, ["A hundred and twenty dollars.", "No, that's not necessary."],
              [(.answered, "120 USD"), (.answered, "no")]),
        .init("won't say", engineer, ["That's not something I'll share.", "I'd rather not tell you."], [(.refused, nil), (.refused, nil)]),
        .init("asks how they got the number", collection, ["<vague> How did you get this number?", "Yes, Monday is fine.", "Yes, same place."],
              [(.answered, "yes"), (.answered, "yes")]),
        .init("calls it off", collection, ["No, please call it off.", "No, we've moved."], [(.answered, "no"), (.answered, "no")]),
        .init("putting the kids to bed", engineer, ["I'm putting the kids to bed, could you ring tomorrow?"], [(.pending, nil), (.notAsked, nil)]),
        .init("hangs up on the dinner", dinner, ["<hangup>"], [(.pending, nil), (.notAsked, nil)]),
        .init("silent after the amount", instalment, ["Fifteen dollars.", "<silence>"], [(.answered, "15 USD"), (.pending, nil)]),
        .init("thinks it over", collection, ["<vague> Hmm, I'm not sure about Monday.", "<vague> Maybe, I'd have to check.", "Yes, I'm still there."],
              [(.unclear, nil), (.answered, "yes")]),
    ]
}
