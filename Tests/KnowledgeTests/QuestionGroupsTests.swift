import Foundation
import Testing
@testable import Knowledge

/// Callers' open questions grouped for the operator: the same question in about the same words is
/// one group (English inflections, Korean particles), a different question is not, and the most
/// asked group comes first, shown by its newest wording.
@Suite struct QuestionGroupsTests {
    static func asked(_ texts: [String]) -> [QuestionGroups.Asked] {
        texts.enumerated().map { .init(id: Int64($0.offset + 1), text: $0.element, askedAt: Date(timeIntervalSince1970: Double($0.offset) * 60)) }
    }

    @Test func theSameQuestionInOtherFormsIsOneGroup() {
        let groups = QuestionGroups.group(Self.asked([
            "Do you sell gift cards?", "Is parking free?", "Can I buy a gift card?", "gift cards — do you sell them?",
            "주차는 무료인가요?", "주차가 무료예요?", "Um, what?", "Um, what?",
        ]))
        #expect(groups.map(\.count) == [3, 2, 2, 1], "\(groups.map { ($0.question, $0.count) })")
        #expect(groups[0].question == "gift cards — do you sell them?" && groups[0].members.map(\.id) == [4, 3, 1], "newest wording, newest first")
        #expect(groups[1].question == "Um, what?", "no terms: grouped only with the same words")
        #expect(groups[2].question == "주차가 무료예요?" && groups[2].members.map(\.id) == [6, 5])
        #expect(groups[3].question == "Is parking free?", "parking in English is not the Korean question")
        #expect(groups[0].lastAskedAt == Date(timeIntervalSince1970: 180))
    }

    @Test func differentQuestionsSharingAWordStayApart() {
        let groups = QuestionGroups.group(Self.asked(["What does the parking cost?", "Where is the parking entrance?", "How much does the cleaning cost?"]))
        #expect(groups.map(\.count) == [1, 1, 1], "\(groups.map(\.question))")
        #expect(QuestionGroups.group([]).isEmpty)
    }
}
