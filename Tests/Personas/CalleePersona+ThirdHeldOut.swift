import Calls

/// The third English held-out set, written on 7 Dec once the second (`secondHeldOut`) had shown
/// the question kinds read wrongly and been tuned on: this one reports. Written before any
/// change it could inform, in new wordings, with numbers, names, times and refusals in no prompt,
/// vocabulary or rule and no line of any other persona's (`CalleePersonaTests`). No test requires
/// them to pass; tuning on them makes them tuning personas.
extension CalleePersona {
    static let training = ["Can you attend the safety training on Thursday?", "How many colleagues will join you?"]
    static let texting = ["What's a good number to text you on?", "What time tomorrow works for a quick call?"]
    static let tickets = ["How many tickets do you need?", "Whose name should be on the booking?"]
    static let balance = ["How much can you pay towards the balance?", "Would you like a reminder the day before?"]
    static let booking = ["Do you still want the appointment on the tenth?", "Has your email address changed?"]

    public static let thirdHeldOut: [CalleePersona] = [
        .init("attends the training", training, ["Yes, I'll attend.", "Three colleagues."], [(.answered, "yes"), (.answered, "3")]),
        .init("misses the training", training, ["No, I'm on leave that day.", "Nobody else, sorry."], [(.answered, "no"), (.answered, "0")]),
        .init("a text number and an afternoon", texting, ["Text me at seven zero three, five five five, zero one two one.", "Tomorrow at half past two in the afternoon."],
              [(.answered, "+17035550121"), (.answered, "{today+1}T14:30")]),
        .init("a mobile and a morning", texting, ["My mobile is five zero three, five five five, zero nine eight two.", "Tomorrow at nine thirty in the morning."],
              [(.answered, "+15035550982"), (.answered, "{today+1}T09:30")]),
        .init("another text number", texting, ["You can text four zero four, five five five, zero three three eight.", "Tomorrow at four in the afternoon."],
              [(.answered, "+14045550338"), (.answered, "{today+1}T16:00")]),
        .init("tickets", tickets, ["Five tickets.", "Under Grace Kim."], [(.answered, "5"), (.answered, "Grace Kim")]),
        .init("tickets after a question", tickets, ["<vague> Are they for the evening show?", "Two, please.", "Oliver Brown."],
              [(.answered, "2"), (.answered, "Oliver Brown")]),
        .init("a part payment", balance, ["I can manage ninety dollars.", "Yes, that would help."], [(.answered, "90 USD"), (.answered, "yes")]),
        .init("a payment and no reminder", balance, ["Three hundred dollars.", "No, I'll remember."], [(.answered, "300 USD"), (.answered, "no")]),
        .init("keeps it private", texting, ["I'd rather keep my number private.", "I don't want a call."], [(.refused, nil), (.refused, nil)]),
        .init("asks what it is about", booking, ["<vague> What is this regarding?", "Yes, I still want it.", "No, it's the same."],
              [(.answered, "yes"), (.answered, "no")]),
        .init("cancels", booking, ["No, please cancel it.", "Yes, it changed."], [(.answered, "no"), (.answered, "yes")]),
        .init("in a meeting", texting, ["I'm in a meeting, could you try later?"], [(.pending, nil), (.notAsked, nil)]),
        .init("hangs up on the tickets", tickets, ["<hangup>"], [(.pending, nil), (.notAsked, nil)]),
        .init("quiet after one", balance, ["Sixty dollars.", "<silence>"], [(.answered, "60 USD"), (.pending, nil)]),
        .init("hesitates", booking, ["<vague> Let me look at my calendar.", "<vague> Possibly.", "Yes, it has changed."],
              [(.unclear, nil), (.answered, "yes")]),
    ]
}
