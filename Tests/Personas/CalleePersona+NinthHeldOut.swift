import Calls

/// The ninth English held-out set, written on 7 Dec (seventy-second session) once the eighth had
/// been tuned on, before any change of that session and before any run on it: no reading was made
/// from it. New wordings of every kind of question, with numbers, names, times and refusals in no
/// prompt, vocabulary or rule and no line of any other persona's (`CalleePersonaTests`). No test
/// requires them to pass; tuning on them makes them tuning personas.
extension CalleePersona {
    static let vet = ["Is your dog still off his food?", "When can you bring him in to see the vet?"]
    static let windows = ["How many windows does the house have?", "Shall the cleaner let himself in through the back gate?"]
    static let removals = ["Which number should the removal crew ring on the day?", "Whose name goes on the inventory?"]
    static let schoolTrip = ["Will your daughter be going on the museum trip?", "How much can you contribute toward the coach?"]
    static let carHire = ["What date do you need the car from?", "Do you want the extra driver cover?"]

    public static let ninthHeldOut: [CalleePersona] = [
        .init("barely touched his bowl", vet, ["Yes, he's barely touched his bowl since Sunday.", "Thursday, twenty past three in the afternoon."],
              [(.answered, "yes"), (.answered, "{next thursday}T15:20")]),
        .init("away until Monday", vet, ["No, he's eating normally again.", "Not this week, I'm away until Monday."],
              [(.answered, "no"), (.unclear, nil)]),
        .init("a cat, not a dog", vet, ["<vague> It's a cat, actually, not a dog.", "Yes, she only eats the treats.", "Saturday morning, around half ten."],
              [(.answered, "yes"), (.answered, "{next saturday}T10:30")]),
        .init("between me and the vet", vet, ["That's between me and the vet.", "Monday at nine in the morning."],
              [(.refused, nil), (.answered, "{next monday}T09:00")]),
        .init("fourteen with the skylight", windows, ["There are fourteen, counting the skylight.", "Yes, the code for the gate is in the email."],
              [(.answered, "14"), (.answered, "yes")]),
        .init("the six at the front", windows, ["Just the six at the front this time.", "No, I'd rather be home when he comes."],
              [(.answered, "6"), (.answered, "no")]),
        .init("counts them again", windows, ["<vague> Gosh, let me think.", "Nine, I think. No, ten.", "Yes, that's fine by me."],
              [(.answered, "10"), (.answered, "yes")]),
        .init("the husband's mobile", removals, ["Ring my husband on four one five, five five five, zero two seven three.", "Put it under Kenji Tanaka."],
              [(.answered, "+14155550273"), (.answered, "Kenji Tanaka")]),
        .init("a landline", removals, ["The landline, six four six, five five five, zero eight one two.", "It'll be Bridget Moran."],
              [(.answered, "+16465550812"), (.answered, "Bridget Moran")]),
        .init("no number needed", removals, ["I'll be at the house, you won't need a number.", "Daniel Mensah."],
              [(.refused, nil), (.answered, "Daniel Mensah")]),
        .init("can't wait", schoolTrip, ["Yes, she can't wait.", "Twenty five pounds towards it."], [(.answered, "yes"), (.answered, "25 GBP")]),
        .init("a hospital appointment", schoolTrip, ["No, she's got a hospital appointment that day.", "Nothing this time, sorry."],
              [(.answered, "no"), (.answered, "0")]),
        .init("at the shop", schoolTrip, ["Can you call back after six? I'm at the shop."], [(.pending, nil), (.notAsked, nil)]),
        .init("the ninth of January", carHire, ["From the ninth of January.", "No, it's only me driving."],
              [(.answered, "{01-09}"), (.answered, "no")]),
        .init("waiting on the flights", carHire,
              ["<vague> I'm still waiting to hear about the flights.", "Probably the twentieth, but don't hold me to it.", "Yes, my brother will drive too."],
              [(.unclear, nil), (.answered, "yes")]),
        .init("the day after tomorrow", carHire, ["The day after tomorrow.", "Yes, add my partner please."],
              [(.answered, "{today+2}"), (.answered, "yes")]),
    ]
}
