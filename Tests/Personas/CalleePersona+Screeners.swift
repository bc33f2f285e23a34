import Calls

/// Held-out call screeners (`make bench`'s `screeners` suite): the phone's assistant answers with
/// its own question, then puts the person through — who answers — or turns the call away. Worded
/// afresh: none of these lines is among the phrases `CallScreener` was tuned on
/// (`CallScreenerTests`), and no test requires them to pass. English in Piper's voice, Korean in
/// espeak-ng's Korean voice.
extension CalleePersona {
    static let delivery = ["Will you be home for the delivery on Friday morning?"]
    static let koreanDelivery = ["금요일 오전 배송 때 댁에 계실 건가요?"]

    /// A screener's opening question, said as the call is answered.
    static func screener(_ words: String) -> String { "<screens \(words)>" }

    public static let screeners: [CalleePersona] = [
        .init("assistant, then the person", delivery,
              [screener("Hi there, I'm an automated assistant answering for this number. Could you tell me who's calling and what it's about?"),
               "Thank you. Please hold while I check if they can talk. <pause 4000> Hi, this is Morgan.", "Yes, I'll be home."],
              [(.answered, "yes")]),
        .init("assistant, turned away", delivery,
              [screener("Hi there, I'm an automated assistant answering for this number. Could you tell me who's calling and what it's about?"),
               "I'm sorry, they're unable to take your call right now. <hangup>"],
              state: .screenedOut, [(.pending, nil)]),
        .init("screened call, then the person", delivery,
              [screener("Hello, this call is being screened. Please state your name and what you're calling about."),
               "Got it, one moment please. <pause 3000> Hello?", "No, I'll be out all day."],
              [(.answered, "no")]),
        .init("screened call, turned away", delivery,
              [screener("Hello, this call is being screened. Please state your name and what you're calling about."),
               "Thanks for calling. Unfortunately this person isn't available. Goodbye. <hangup>"],
              state: .screenedOut, [(.pending, nil)]),
        .init("before I connect you, then the person", delivery,
              [screener("Hi, before I connect you, may I ask who's calling and the reason for your call? I'll let them know."),
               "Thanks, stay on the line please. <pause 5000> Hey, it's Sam here.", "Yeah, I'll be there."],
              [(.answered, "yes")]),
        .init("before I connect you, declined", delivery,
              [screener("Hi, before I connect you, may I ask who's calling and the reason for your call? I'll let them know."),
               "They have declined the call. <hangup>"],
              state: .screenedOut, [(.pending, nil)]),
        .init("digital assistant, then the person", delivery,
              [screener("Hello, I'm the digital assistant for this phone. Who is calling, please, and what is this regarding? I'll see if they can pick up."),
               "Okay, thanks. Hold on a moment. <pause 4000> Hi, sorry, I'm here now.", "Yes, I will."],
              [(.answered, "yes")]),
        .init("digital assistant, no one comes", delivery,
              [screener("Hello, I'm the digital assistant for this phone. Who is calling, please, and what is this regarding? I'll see if they can pick up."),
               "<hangup>"],
              state: .screenedOut, [(.pending, nil)]),
        .init("reason for the call, then the person", delivery,
              [screener("You've reached a screening assistant. Please tell me your name and why you're calling, and I'll pass it along."),
               "Thanks. Connecting you now. <pause 3000> Hello, Lee speaking.", "No, sorry, nobody will be in."],
              [(.answered, "no")]),
        .init("reason for the call, turned away", delivery,
              [screener("You've reached a screening assistant. Please tell me your name and why you're calling, and I'll pass it along."),
               "Sorry, they can't come to the phone. <hangup>"],
              state: .screenedOut, [(.pending, nil)]),
        .init("screener that asks twice", delivery,
              [screener("Hello, the person you're calling has call screening turned on. Please say your name and the reason for your call."),
               "Pardon? Once more, please: your name and the reason for your call.",
               "Thanks, hold on. <pause 4000> Hello, who's this?", "Yes, I'll be home."],
              [(.answered, "yes")]),
        .init("screener that holds, then nobody", delivery,
              [screener("Hello, the person you're calling has call screening turned on. Please say your name and the reason for your call."),
               "Please stay on the line. <pause 5000> <hangup>"],
              state: .screenedOut, [(.pending, nil)]),
    ]

    /// Korean screeners (`language: ko`), said in espeak-ng's Korean voice.
    public static let koreanScreeners: [CalleePersona] = [
        .init("통화 도우미, 본인 연결", koreanDelivery,
              [screener("안녕하세요. 통화 도우미입니다. 성함과 전화하신 용건을 말씀해 주시면 전해 드리겠습니다."),
               "감사합니다. 잠시만 기다려 주세요. <pause 4000> 여보세요?", "네, 집에 있을 거예요."],
              [(.answered, "yes")]),
        .init("통화 도우미, 거절", koreanDelivery,
              [screener("안녕하세요. 통화 도우미입니다. 성함과 전화하신 용건을 말씀해 주시면 전해 드리겠습니다."),
               "죄송합니다. 지금 전화를 받으실 수 없다고 하십니다. <hangup>"],
              state: .screenedOut, [(.pending, nil)]),
        .init("자동 응답 비서, 본인 연결", koreanDelivery,
              [screener("여보세요, 자동 응답 비서입니다. 누구신지, 어떤 일로 전화하셨는지 말씀해 주세요."),
               "네, 연결해 드리겠습니다. <pause 3000> 네, 여보세요.", "아니요, 그날은 없어요."],
              [(.answered, "no")]),
        .init("자동 응답 비서, 연결 안 됨", koreanDelivery,
              [screener("여보세요, 자동 응답 비서입니다. 누구신지, 어떤 일로 전화하셨는지 말씀해 주세요."), "<hangup>"],
              state: .screenedOut, [(.pending, nil)]),
        .init("대신 받음, 본인 연결", koreanDelivery,
              [screener("지금 대신 전화를 받았어요. 어디시고 무슨 용무인지 알려 주시면 전달할게요."),
               "잠깐만요. <pause 4000> 여보세요, 전화 바꿨습니다.", "네, 있어요."],
              [(.answered, "yes")]),
        .init("대신 받음, 거절", koreanDelivery,
              [screener("지금 대신 전화를 받았어요. 어디시고 무슨 용무인지 알려 주시면 전달할게요."),
               "지금은 전화 받기 어렵다고 하시네요. <hangup>"],
              state: .screenedOut, [(.pending, nil)]),
        .init("용건 확인, 본인 연결", koreanDelivery,
              [screener("통화 비서 서비스입니다. 받으시는 분께 전해 드릴 테니 성함과 용건을 말씀해 주세요."),
               "확인했습니다. 연결 중입니다. <pause 4000> 여보세요?", "네, 그때 집에 있어요."],
              [(.answered, "yes")]),
        .init("용건 확인, 연결 안 됨", koreanDelivery,
              [screener("통화 비서 서비스입니다. 받으시는 분께 전해 드릴 테니 성함과 용건을 말씀해 주세요."),
               "지금은 연결할 수 없습니다. <hangup>"],
              state: .screenedOut, [(.pending, nil)]),
    ]
}
