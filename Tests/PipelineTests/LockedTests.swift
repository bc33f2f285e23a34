import Testing
import TestSupport

/// The tests' shared value (`TestSupport.Locked`): a wait on it ends at the change that meets its
/// condition, says what it saw when it times out, and ends when its task is cancelled.
struct LockedTests {
    @Test func aWaitEndsAtTheChangeThatMeetsItsCondition() async throws {
        let count = Locked(0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await count.wait(for: "three", timeout: .seconds(60)) { $0 == 3 } }
            group.addTask { try await count.wait(for: "one, already past when the third change comes", timeout: .seconds(60)) { $0 >= 1 } }
            for _ in 0..<3 { count.withLock { $0 += 1 } }
            try await group.waitForAll()
        }
        try await count.wait(for: "a condition met now") { $0 == 3 }   // returns at once
    }

    @Test func aWaitThatTimesOutSaysWhatItWaitedForAndWhatItSaw() async throws {
        let heard = Locked(["hello"])
        let error = await #expect(throws: WaitTimedOut.self) {
            try await heard.wait(for: "a goodbye", timeout: .milliseconds(50)) { $0.contains("goodbye") }
        }
        #expect(error?.description.contains("a goodbye") == true && error?.description.contains("hello") == true, "\(String(describing: error))")
    }

    @Test(.timeLimit(.minutes(1))) func aCancelledWaitEnds() async throws {
        let never = Locked(false)
        let waiting = Task { try await never.wait(for: "nothing", timeout: .seconds(3600)) { $0 } }
        waiting.cancel()
        _ = await waiting.result   // ends (with or without an error) instead of waiting out the hour
        #expect(!never.value)
    }
}
