import Calls

/// Held-out phone menus (`make bench`'s `menus` suite): a business's menu of one to three levels
/// answers, each level waiting for its key (RFC 4733 over SIP), then the person — sometimes after
/// "please hold" — who answers the call's question. Worded afresh: none of these menus is among
/// those `PhoneMenu` was tuned on (`PhoneMenuTests`), and no test requires them to pass. English in
/// Piper's voice, Korean in espeak-ng's Korean voice.
extension CalleePersona {
    /// One level of a menu and the key that leads on.
    static func menu(_ key: Character, _ words: String) -> String { "<ivr \(key) \(words)>" }

    static let dentistVisit = ["Can you move our dental check-up for Mrs. Lee to Thursday?"]
    static let gardenOrder = ["Is the garden hose we ordered back in stock?"]
    static let carService = ["Can the car service on Monday start at nine?"]
    static let hotelBooking = ["Do you still have a double room free for Saturday night?"]
    static let insuranceClaim = ["Has the claim for the broken window been approved?"]

    public static let menus: [CalleePersona] = [
        .init("dental office, appointments", dentistVisit,
              [menu("2", "You have reached Bright Smile Dental. For directions and opening hours, press 1. To change an appointment, press 2. For billing questions, press 3."),
               "<pause 1500> Front desk, this is Ana.", "Yes, Thursday works."], [(.answered, "yes")]),
        .init("dental office, two levels", dentistVisit,
              [menu("1", "Thanks for calling the dental clinic. For appointments press 1. For insurance press 2."),
               menu("2", "To book a new visit press 1. To move an existing visit press 2. To cancel press 3."),
               "<pause 2000> Hi, scheduling, Omar speaking.", "No, Thursday is full."], [(.answered, "no")]),
        .init("garden shop, stock", gardenOrder,
              [menu("3", "Welcome to Green Thumb Garden Supply. For store hours, press 1. To place an order, press 2. For questions about stock and availability, press 3."),
               "Please hold while we connect you. <pause 3000> Hello, stock desk.", "Yes, it came in yesterday."], [(.answered, "yes")]),
        .init("garden shop, orders then stock", gardenOrder,
              [menu("2", "Green Thumb Garden Supply. If you are calling about store hours, press 1. About an order, press 2."),
               menu("1", "For an order you already placed, press 1. For a new order, press 2."),
               "<pause 1500> Orders, Beth here.", "No, it's still out of stock."], [(.answered, "no")]),
        .init("garage, service bookings", carService,
              [menu("1", "Hello and welcome to Northside Motors. For service bookings press one. For parts press two. For sales press three."),
               "<pause 2000> Service desk, Tom speaking.", "Yes, nine is fine."], [(.answered, "yes")]),
        .init("garage, three levels", carService,
              [menu("2", "Northside Motors. Sales, press 1. Service, press 2."),
               menu("1", "To book or change a service, press 1. To collect your car, press 2."),
               menu("2", "For a new booking, press 1. To change a booking you have, press 2."),
               "<pause 2000> Hello, bookings.", "No, we open at ten on Mondays."], [(.answered, "no")]),
        .init("hotel, reservations", hotelBooking,
              [menu("1", "Thank you for calling the Harbour Hotel. For reservations and room availability, press 1. For the restaurant, press 2. For events, press 3."),
               "<pause 1500> Reservations, good afternoon.", "Yes, we have one left."], [(.answered, "yes")]),
        .init("hotel, operator only", hotelBooking,
              [menu("0", "Harbour Hotel. For the restaurant, press 1. For the spa, press 2. For all other enquiries, press 0."),
               "<pause 2000> Front desk, how can I help?", "Yes, a double is free."], [(.answered, "yes")]),
        .init("insurer, claims", insuranceClaim,
              [menu("2", "Welcome to Safe Home Insurance. To buy a new policy press 1. To check on a claim press 2. To update your details press 3."),
               "Your call is important to us. Please stay on the line. <pause 3000> Claims team, this is Raj.", "Yes, it was approved this morning."],
              [(.answered, "yes")]),
        .init("insurer, claims two levels", insuranceClaim,
              [menu("1", "Safe Home Insurance. For claims press 1. For policies press 2."),
               menu("2", "To make a new claim press 1. For the status of a claim you already made press 2."),
               "<pause 2000> Hello, claims status, Mia speaking.", "No, it is still being reviewed."], [(.answered, "no")]),
        .init("garage, nothing fits", hotelBooking,
              [menu("9", "Northside Motors. For sales press 1. For parts press 2."), "Hello?"], [(.pending, nil)]),
        .init("clinic, nothing fits and no desk", carService,
              [menu("9", "Bright Smile Dental. For directions press 1. For billing press 2."), "Hello?"], [(.pending, nil)]),
        .init("insurer, repeated once", insuranceClaim,
              [menu("2", "Safe Home Insurance. New policies, press 1. Existing claims, press 2. Anything else, press 0."),
               "<pause 2000> Claims, good morning.", "Yes, approved."], [(.answered, "yes")]),
        .init("hotel, words after keys", hotelBooking,
              [menu("2", "Harbour Hotel. Press 1 for the restaurant. Press 2 for room reservations. Press 3 for the spa."),
               "<pause 1500> Reservations desk.", "No, Saturday is fully booked."], [(.answered, "no")]),
    ]

    static let koreanDelivery2 = ["이번 주 토요일에 택배 받으실 수 있나요?"]
    static let koreanClinic = ["다음 주 화요일 진료 예약 가능하세요?"]

    /// Korean menus (`language: ko`), said in espeak-ng's Korean voice.
    public static let koreanMenus: [CalleePersona] = [
        .init("택배사, 배송 문의", koreanDelivery2,
              [menu("2", "한빛택배입니다. 요금 문의는 1번, 배송 문의는 2번, 반품은 3번을 눌러 주세요."), "<pause 1500> 네, 배송 담당입니다.", "네, 받을 수 있어요."],
              [(.answered, "yes")]),
        .init("택배사, 상담원", koreanDelivery2,
              [menu("0", "한빛택배입니다. 요금 문의는 1번, 반품은 3번, 그 밖의 문의는 상담원 0번입니다."), "<pause 2000> 여보세요, 상담원입니다.", "아니요, 토요일은 집에 없어요."],
              [(.answered, "no")]),
        .init("병원, 예약", koreanClinic,
              [menu("1", "서울내과입니다. 진료 예약은 1번, 검사 결과는 2번, 위치 안내는 3번입니다."), "<pause 1500> 네, 예약 창구입니다.", "네, 가능합니다."],
              [(.answered, "yes")]),
        .init("병원, 두 단계", koreanClinic,
              [menu("1", "서울내과입니다. 예약은 1번, 그 밖의 문의는 2번을 눌러 주세요."),
               menu("2", "새 예약은 1번, 예약 변경은 2번입니다."), "<pause 1500> 여보세요?", "아니요, 화요일은 마감됐어요."],
              [(.answered, "no")]),
        .init("병원, 맞는 번호 없음", koreanDelivery2,
              [menu("9", "서울내과입니다. 검사 결과는 2번, 위치 안내는 3번입니다."), "여보세요?"], [(.pending, nil)]),
        .init("택배사, 대기 후 연결", koreanDelivery2,
              [menu("2", "한빛택배입니다. 요금 문의는 1번, 배송 문의는 2번입니다."), "잠시만 기다려 주세요. <pause 3000> 네, 배송팀입니다.", "네, 토요일 괜찮아요."],
              [(.answered, "yes")]),
    ]
}
