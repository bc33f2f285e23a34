import Dialogue
import Knowledge
import Testing
import TestSupport

/// The menu choice with the model's closeness in meaning (multilingual-e5-small, as `make deps`
/// installs it): the menus its floor and margin were set on. `make bench`'s `menus` suite is
/// worded otherwise.
@Suite struct PhoneMenuMeaningTests {
    static func choice(_ menu: String, toward goal: String) async throws -> Character? {
        let embedder = try E5Embedder.shared(in: Fixtures.repository.appendingPathComponent(".deps").path)
        let menu = try #require(PhoneMenu(menu))
        let goalVector = try await embedder.query(goal)
        let vectors = try await embedder.passages(menu.options.map(\.words))
        var meaning: [String: Double] = [:]
        for (option, vector) in zip(menu.options, vectors) { meaning[option.words] = E5Embedder.closeness(goalVector, vector) }
        return menu.choice(toward: goal, meaning: meaning)?.key
    }

    @Test func aTieOfSharedWordsGoesToTheCloserOption() async throws {
        #expect(try await Self.choice("To place a new order press 1. To track an order you placed press 2.",
                                      toward: "your order's delivery date Can the order arrive on Friday?") == "2")
        #expect(try await Self.choice("To place a new order press 1. To check on an order you placed press 2.",
                                      toward: "your order's delivery date Can the order arrive on Friday?") == "2")
    }

    @Test func withNoSharedWordOnlyAClearlyCloseOptionIsPressed() async throws {
        #expect(try await Self.choice("요금 문의는 1번, 배달 관련 문의는 2번, 반품은 3번을 눌러 주세요.",
                                      toward: "이번 주 택배 배송 일정 토요일에 받으실 수 있나요?") == "2")
        #expect(try await Self.choice("For billing press 1. For deliveries press 2.", toward: "the survey about our new park Do you visit the park?") == nil)
        #expect(try await Self.choice("For opening hours press 1. To book a table press 2. For private events press 3. To speak to someone press 0.",
                                      toward: "the survey about our new park Do you visit the park?") == "0")
    }
}
