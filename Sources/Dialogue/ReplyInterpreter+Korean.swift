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

    /// "세 명" → "3", "오만 원" → "50000 KRW", "아무도 없어요" → "0". One value, as in English:
    /// a reply holding two ("다섯 명이나 여섯 명", "삼만 원에서 사만 원") gives none, unless the
    /// caller takes the first back ("다섯 명, 아니 여섯 명" → 6); a clock's hour beside a count
    /// ("두 명, 세 시에 갈게요") is no second count.
    static func koreanAmount(in reply: String) -> String? {
        guard var (value, rest) = KoreanNumber.firstNumber(in: reply) else {
            return ["아무도", "없어요", "없습니다", "한 명도", "하나도"].contains(where: reply.contains) ? "0" : nil
        }
        var currency = koreanCurrencies.first(where: { rest.hasPrefix($0.key) })?.value
        while let (next, after) = KoreanNumber.firstNumber(in: String(rest)) {
            let between = rest.prefix(rest.count - after.count)
            defer { rest = after }
            if after.hasPrefix("시"), !after.hasPrefix("시간") { continue }
            if koreanCorrections.contains(where: between.contains) {
                value = next
                currency = koreanCurrencies.first(where: { after.hasPrefix($0.key) })?.value ?? currency
            } else if next != value {
                return nil
            }
        }
        return currency.map { "\(value) \($0)" } ?? String(value)
    }

    /// Words between two numbers that take the first back: "아니", "아니요", "정정".
    static let koreanCorrections = ["아니", "정정", "아 참"]

    /// The option the reply names, particles and spaces aside ("파란색이요" → "파란색"); nil for none or several.
    static func koreanChoice(in reply: String, among choices: [String]) -> String? {
        let said = reply.lowercased().replacingOccurrences(of: " ", with: "")
        let named = choices.filter { !$0.isEmpty && said.contains($0.lowercased().replacingOccurrences(of: " ", with: "")) }
        return named.count == 1 ? named[0] : nil
    }
}
