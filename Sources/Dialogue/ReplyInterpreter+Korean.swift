import Foundation

/// The local dialogue's rules for Korean replies (`language: ko`): the same meanings as the
/// English rules, read with `KoreanReply`, `KoreanNumber` and `KoreanDate`.
extension ReplyInterpreter {
    func interpretKorean(_ reply: String, asked: Int, open: Set<Int>) -> Meaning {
        let words = KoreanReply.words(reply)
        guard KoreanReply.hasContent(reply) else { return words.isEmpty ? .nothing : .unclear }
        if KoreanReply.says(KoreanReply.wantsPerson, in: reply) { return .wantsPerson }
        if KoreanReply.says(KoreanReply.whoIsCalling, in: reply) { return .whoIsCalling }
        if KoreanReply.says(KoreanReply.callBack, in: reply) { return .callBackLater }
        if KoreanReply.says(KoreanReply.refusals, in: reply) { return .refused }
        let kind = kinds.indices.contains(asked) ? kinds[asked] : .freeText
        // A hedge makes a reply unclear, unless it opens with a plain yes or no ("아니요, 잘 모르겠지만 …").
        let opensPlainly = words.first.map { KoreanReply.shortYeses.contains($0) || $0.hasPrefix("아니") || $0 == "아뇨" } ?? false
        let hedged = KoreanReply.says(KoreanReply.hedges, in: reply) && !opensPlainly
        var found: [Int: Extracted] = [:]
        if !(hedged && [.yesNo, .freeText, .choice].contains(kind)), let answer = extractKorean(kind, from: reply, strict: false, choices: choices[asked] ?? []) {
            found[asked] = Extracted(summary: answer, confidence: hedged ? 0.5 : 0.9)
        }
        for other in open.sorted() where other != asked && kinds[other] != kind && [.phoneNumber, .dateTime].contains(kinds[other]) {
            if let answer = extractKorean(kinds[other], from: reply, strict: true) { found[other] = Extracted(summary: answer, confidence: 0.8) }
        }
        return found.isEmpty ? .unclear : .answers(found)
    }

    /// The normalised answer of `kind` in a Korean reply; `strict`: only forms that cannot be something else.
    func extractKorean(_ kind: AnswerKind, from reply: String, strict: Bool, choices: [String] = []) -> String? {
        switch kind {
        case .yesNo: KoreanReply.polarity(of: reply).map { $0 ? "yes" : "no" }
        case .name: KoreanReply.name(in: reply)
        case .phoneNumber: phoneNumber(digits: KoreanNumber.digitRun(in: reply), plus: reply.contains("+"))
        case .dateTime: strict ? koreanDates.day(in: reply.replacingOccurrences(of: " ", with: "")).flatMap { _ in koreanDates.iso(in: reply) } : koreanDates.iso(in: reply)
        case .number: Self.koreanAmount(in: reply)
        case .choice: Self.koreanChoice(in: reply, among: choices)
        case .freeText: reply.trimmingCharacters(in: .whitespacesAndNewlines.union(.punctuationCharacters))
        }
    }

    var koreanDates: KoreanDate { KoreanDate(now: dates.now, calendar: dates.calendar) }

    static let koreanCurrencies = ["원": "KRW", "달러": "USD", "불": "USD", "유로": "EUR", "엔": "JPY"]

    /// "세 명" → "3", "오만 원" → "50000 KRW", "아무도 없어요" → "0".
    static func koreanAmount(in reply: String) -> String? {
        guard let (value, rest) = KoreanNumber.firstNumber(in: reply) else {
            return ["아무도", "없어요", "없습니다", "한 명도", "하나도"].contains(where: reply.contains) ? "0" : nil
        }
        if let currency = koreanCurrencies.first(where: { rest.hasPrefix($0.key) }) { return "\(value) \(currency.value)" }
        return String(value)
    }

    /// The option the reply names, particles and spaces aside ("파란색이요" → "파란색"); nil for none or several.
    static func koreanChoice(in reply: String, among choices: [String]) -> String? {
        let said = reply.lowercased().replacingOccurrences(of: " ", with: "")
        let named = choices.filter { !$0.isEmpty && said.contains($0.lowercased().replacingOccurrences(of: " ", with: "")) }
        return named.count == 1 ? named[0] : nil
    }
}
