import Foundation
import Testing
@testable import Calls

/// Calling windows and dial pacing are pure functions of the time they are given: hours of a
/// campaign are checked here in microseconds, no sleeping.
@Suite struct CampaignPacingTests {
    static func date(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

    @Test func aSeoulOfficeHoursWindowIsSeoulsWallClock() {
        let window = CallingWindow(timeZone: "Asia/Seoul", days: [1, 2, 3, 4, 5], start: "09:00", end: "18:00")
        // 2026-11-23 is a Monday. 00:00 UTC is 09:00 in Seoul.
        #expect(window.contains(Self.date("2026-11-23T00:00:00Z")))
        #expect(!window.contains(Self.date("2026-11-22T23:59:00Z")), "08:59 Monday in Seoul")
        #expect(window.contains(Self.date("2026-11-23T08:59:00Z")), "17:59")
        #expect(!window.contains(Self.date("2026-11-23T09:00:00Z")), "18:00: the end is exclusive")
        #expect(!window.contains(Self.date("2026-11-28T02:00:00Z")), "Saturday 11:00")
        #expect(window.contains(Self.date("2026-11-27T02:00:00Z")), "Friday 11:00")
    }

    @Test func aWindowPastMidnightBelongsToTheDayItOpened() {
        let night = CallingWindow(timeZone: "UTC", days: [5], start: "22:00", end: "02:00")   // Friday night
        #expect(night.contains(Self.date("2026-11-27T23:00:00Z")), "Friday 23:00")
        #expect(night.contains(Self.date("2026-11-28T01:30:00Z")), "Saturday 01:30, still Friday's window")
        #expect(!night.contains(Self.date("2026-11-29T01:30:00Z")), "Sunday 01:30: Saturday's window, not listed")
        #expect(!night.contains(Self.date("2026-11-28T02:00:00Z")))
    }

    @Test func aBadWindowNamesEachField() {
        let bad = CallingWindow(timeZone: "Mars/Olympus", days: [0, 8], start: "9:00", end: "25:00")
        #expect(bad.problems(prefix: "window").map(\.name) == ["window.time_zone", "window.days", "window.start", "window.end"])
        #expect(CallingWindow(timeZone: "Asia/Seoul").problems(prefix: "window").isEmpty)
    }

    @Test func pacingHoldsTheRateOverAnHourWhateverTheTick() {
        for (perMinute, tick) in [(60, 0.1), (100, 0.25), (7, 1.0), (600, 0.1)] {
            var pacer = DialPacer(callsPerMinute: perMinute)
            var released = 0
            for step in 0..<Int(3600 / tick) { released += pacer.release(wanted: 50, now: Double(step) * tick) }
            let expected = perMinute * 60
            #expect(abs(released - expected) <= 1, "\(perMinute)/min ticked every \(tick) s: \(released) in an hour, expected \(expected)")
        }
    }

    @Test func noBurstAfterAPause() {
        var pacer = DialPacer(callsPerMinute: 60)
        #expect(pacer.release(wanted: 5, now: 0) == 1)
        for t in stride(from: 1.0, through: 600, by: 1) { _ = pacer.release(wanted: 0, now: t) }   // ten minutes unable to dial
        #expect(pacer.release(wanted: 50, now: 600.5) == 1, "one, not the ten minutes' worth")
        #expect(pacer.release(wanted: 50, now: 600.9) == 0)
        #expect(pacer.release(wanted: 50, now: 601.0) == 1, "then one a second again")
    }
}
