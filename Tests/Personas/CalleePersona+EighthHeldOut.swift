import Calls

/// The eighth English held-out set, written on 7 Dec (seventy-first session) after the seventh had
/// been tuned on and after the reading of two counts in one reply, and run only on the server
/// holding every reading before it: no reading was made from it. New wordings of every kind of
/// question, with numbers, names, times and refusals in no prompt, vocabulary or rule and no line
/// of any other persona's (`CalleePersonaTests`). No test requires them to pass; tuning on them
/// makes them tuning personas.
extension CalleePersona {
    static let garage = ["Is the car still making that rattling noise?", "When can you drop the car off with us?"]
    static let catering = ["How many guests are you expecting at the reception?", "Does anyone in the party need a vegetarian meal?"]
    static let pharmacy = ["What's the best number to send the pickup text to?", "Who will be collecting the prescription?"]
    static let gym = ["Would you like to keep your membership for another year?", "How much would you want to pay upfront?"]
    static let tutoring = ["When should the tutor come for the first lesson?", "Can the tutor park in your driveway?"]

    public static let eighthHeldOut: [CalleePersona] = [
        .init("the rattle is gone", garage, ["No, it went away after the tyres were changed.", "Wednesday at quarter to eight."],
              [(.answered, "no"), (.answered, "{next wednesday}T07:45")]),
        .init("driving, phone this evening", garage, ["Yes, it's worse over bumps.", "I'm driving right now, can you phone me this evening?"],
              [(.answered, "yes"), (.pending, nil)]),
        .init("the husband drives it", garage,
              ["<vague> I'm not the one who drives it, my husband does.", "Yes, he says it still rattles.", "Thursday around nine in the morning."],
              [(.answered, "yes"), (.answered, "{next thursday}T09:00")]),
        .init("eighty guests", catering, ["We're expecting about eighty.", "Yes, two of them are vegetarian."], [(.answered, "80"), (.answered, "yes")]),
        .init("the list is not settled", catering, ["<vague> We haven't settled the list yet.", "Put down sixty five for now.", "No, nobody."],
              [(.answered, "65"), (.answered, "no")]),
        .init("no numbers before the contract", catering,
              ["I'd prefer not to give numbers until the contract is signed.", "Actually, yes, my sister doesn't eat meat."],
              [(.refused, nil), (.answered, "yes")]),
        .init("a Boston mobile", pharmacy, ["Text six one seven, five five five, zero one nine eight.", "My daughter, Olivia Grant."],
              [(.answered, "+16175550198"), (.answered, "Olivia Grant")]),
        .init("finds her glasses", pharmacy, ["<vague> Hang on, let me find my glasses.", "Nine one seven, five five five, zero four six three.", "Marcus Webb will come by."],
              [(.answered, "+19175550463"), (.answered, "Marcus Webb")]),
        .init("no mobile for shops", pharmacy, ["I don't give my mobile to shops.", "Ruth Okafor, that's me."],
              [(.refused, nil), (.answered, "Ruth Okafor")]),
        .init("renews for a year", gym, ["Yes, sign me up for another year.", "Two hundred and forty pounds, if that covers it."],
              [(.answered, "yes"), (.answered, "240 GBP")]),
        .init("moving abroad", gym, ["No thanks, I'm moving abroad in the spring.", "Nothing, I won't be renewing."], [(.answered, "no"), (.answered, "0")]),
        .init("talks it over first", gym, ["<vague> Let me talk it over with my wife first.", "Ring me on Friday and I'll tell you."],
              [(.pending, nil), (.notAsked, nil)]),
        .init("after school on Tuesday", tutoring, ["Tuesday at four thirty, after school.", "Yes, there's plenty of room."],
              [(.answered, "{next tuesday}T16:30"), (.answered, "yes")]),
        .init("street parking only", tutoring, ["Saturday at six in the evening.", "No, it's street parking only."],
              [(.answered, "{next saturday}T18:00"), (.answered, "no")]),
        .init("asks who is calling", tutoring, ["<vague> Who's this calling, sorry?", "Sunday morning at ten.", "I'd rather not go into that."],
              [(.answered, "{next sunday}T10:00"), (.refused, nil)]),
        .init("checks the calendar", tutoring, ["<vague> I'll have to check the calendar.", "Let's say Wednesday at five.", "Sure, the driveway is free."],
              [(.answered, "{next wednesday}T17:00"), (.answered, "yes")]),
    ]
}
