import Synchronization
import Testing
@testable import Calls

/// The limit of local-engine calls at once, moved by the turns the calls in progress measure.
@Suite struct CallAdmissionTests {
    /// Ten turns of `milliseconds` each, with `live` calls live.
    func window(_ admission: CallAdmission, _ milliseconds: Int, live: Int) {
        for _ in 0..<admission.settings.window { admission.turnMeasured(milliseconds: milliseconds, live: live) }
    }

    @Test func quickTurnsAtTheLimitLetOneMoreCallInAndRingTheQueue() {
        let rings = Atomic<Int>(0)
        let admission = CallAdmission(settings: .init(most: 8, start: 3, turnLatencyGoalMilliseconds: 800), raised: { rings.add(1, ordering: .relaxed) })
        #expect(admission.room(live: 0) == 3 && admission.room(live: 3) == 0)
        for _ in 0..<9 { admission.turnMeasured(milliseconds: 500, live: 3) }
        #expect(admission.limit == 3, "nothing decided before a whole window")
        admission.turnMeasured(milliseconds: 500, live: 3)
        #expect(admission.limit == 4 && rings.load(ordering: .relaxed) == 1)
        #expect(admission.reading == .init(limit: 4, recentTurnLatencyMilliseconds: 500))
        for live in 4...20 { window(admission, 500, live: live) }
        #expect(admission.limit == 8, "never beyond the most")
        #expect(rings.load(ordering: .relaxed) == 5)
    }

    @Test func turnsFarUnderTheGoalLetAQuarterMoreIn() {
        let admission = CallAdmission(settings: .init(most: 30, start: 5, turnLatencyGoalMilliseconds: 800))
        var limits: [Int] = []
        for _ in 0..<8 { window(admission, 350, live: admission.limit); limits.append(admission.limit) }
        #expect(limits == [6, 7, 8, 10, 12, 15, 18, 22], "\(limits)")
    }

    @Test func quickTurnsWithRoomToSpareDoNotRaiseIt() {
        let admission = CallAdmission(settings: .init(most: 8, start: 3, turnLatencyGoalMilliseconds: 800))
        window(admission, 300, live: 2)
        #expect(admission.limit == 3, "the limit was not what held calls back")
    }

    @Test func aSlowMedianBringsItDownAndOneSlowTurnDoesNot() {
        let admission = CallAdmission(settings: .init(most: 30, start: 20, turnLatencyGoalMilliseconds: 800))
        // Four turns at the end-of-turn model's ceiling among six quick ones: the median is quick.
        for n in 0..<10 { admission.turnMeasured(milliseconds: n < 4 ? 2000 : 450, live: 20) }
        #expect(admission.limit == 21)
        window(admission, 1200, live: 21)
        #expect(admission.limit == 18, "a tenth fewer than are live")
        window(admission, 1200, live: 18)
        window(admission, 1200, live: 16)
        #expect(admission.limit == 14)
        // Between three quarters of the goal and the goal it holds.
        window(admission, 700, live: 14)
        #expect(admission.limit == 14)
        for _ in 0..<40 { window(admission, 5000, live: 1) }
        #expect(admission.limit == 1, "never below one call")
    }

    @Test func withoutAGoalTheLimitIsFixed() {
        let admission = CallAdmission(settings: .fixed(4))
        window(admission, 5000, live: 4)
        window(admission, 10, live: 4)
        #expect(admission.limit == 4 && admission.reading.recentTurnLatencyMilliseconds == nil)
    }
}
