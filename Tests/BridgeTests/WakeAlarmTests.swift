import Testing
@testable import Bridge

/// Issue 57 item 3: the SIP user agent's timer loop and the call manager's queue sleep until their
/// earliest deadline or new work, rather than looking every 10 or 100 ms. Only lower bounds are checked: a loaded machine
/// may wake it later, never earlier.
@Suite struct WakeAlarmTests {
    @Test func aWaitReturnsAtTheDeadlineArmedNotBefore() async {
        let alarm = WakeAlarm()
        let armed = ContinuousClock.now
        alarm.arm(at: armed.advanced(by: .milliseconds(200)))
        await alarm.wait()
        #expect(ContinuousClock.now >= armed.advanced(by: .milliseconds(200)))
    }

    @Test func aRingWithNobodyWaitingIsKeptForTheNextWait() async {
        let alarm = WakeAlarm()
        alarm.arm(at: ContinuousClock.now.advanced(by: .seconds(-1)))   // passed: rings at once
        await alarm.wait()                                                // returns: the ring was kept
        alarm.ring()
        await alarm.wait()
    }

    /// An earlier deadline replaces a later one (a new transaction's Timer A before a call's ring timeout).
    @Test func anEarlierDeadlineReplacesALaterOne() async {
        let alarm = WakeAlarm()
        let armed = ContinuousClock.now
        alarm.arm(at: armed.advanced(by: .seconds(3600)))
        alarm.arm(at: armed.advanced(by: .milliseconds(50)))
        await alarm.wait()
        #expect(ContinuousClock.now >= armed.advanced(by: .milliseconds(50)))
        alarm.arm(at: nil)   // nothing to wait for: a waiter only returns on a ring or cancellation
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await alarm.wait() }
            group.cancelAll()   // …which returns it
        }
    }
}
