import Pipeline
@testable import Realtime
import Testing
import TestSupport

/// The voices' shared cache: a text being made is waited for, not made again; a failure reaches
/// nobody but its maker, and hands the making to a waiter; the least recently said text goes
/// first.
@Suite struct SpeechCacheTests {
    /// Makers held until the test lets them finish, counted as they start.
    final class Makers: Sendable {
        let started = Locked(0)
        let released = Locked(false)

        func make(_ speech: [Int16]) async throws -> [Int16] {
            started.withLock { $0 += 1 }
            try await released.wait(for: "the test to release the maker") { $0 }
            try Task.checkCancellation()
            return speech
        }
    }

    @Test func callersAskingForATextBeingMadeWaitForItInsteadOfMakingItAgain() async throws {
        let cache = SpeechCache(capacity: 1_000), makers = Makers()
        let speeches = try await withThrowingTaskGroup(of: [Int16].self) { group in
            for _ in 0..<8 { group.addTask { try await cache.speech(for: "Hello,") { try await makers.make([1, 2, 3]) } } }
            try await makers.started.wait(for: "the first maker to start") { $0 == 1 }
            try await waitUntil { cache.waiters(for: "Hello,") == 7 }
            #expect(cache.waiters(for: "Hello,") == 7)
            makers.released.withLock { $0 = true }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(speeches == Array(repeating: [1, 2, 3], count: 8))
        #expect(makers.started.withLock { $0 } == 1)
        // Kept: asked again, it is not made.
        #expect(try await cache.speech(for: "Hello,") { Issue.record("made again"); return [] } == [1, 2, 3])
    }

    struct Broken: Error, Equatable {}

    /// A maker's failure is its own: the waiter makes the text itself (a simulated callee whose
    /// synthesis is `try?` would otherwise stay silent for another call's trouble).
    @Test func aFailedMakerHandsTheTextToAWaiter() async throws {
        let cache = SpeechCache(capacity: 1_000), released = Locked(false)
        let maker = Task {
            try await cache.speech(for: "Hi") {
                try await released.wait(for: "the test to release the maker") { $0 }
                throw Broken()
            }
        }
        try await waitUntil { cache.waiters(for: "Hi") == 0 }   // being made, nobody waiting yet
        #expect(cache.waiters(for: "Hi") == 0)
        let waiter = Task { try await cache.speech(for: "Hi") { [9] } }
        try await waitUntil { cache.waiters(for: "Hi") == 1 }
        #expect(cache.waiters(for: "Hi") == 1)
        released.withLock { $0 = true }
        await #expect(throws: Broken.self) { try await maker.value }
        #expect(try await waiter.value == [9])
    }

    @Test func aCancelledMakerHandsTheTextToAWaiter() async throws {
        let cache = SpeechCache(capacity: 1_000), makers = Makers()
        let first = Task { try await cache.speech(for: "Thank you.") { try await makers.make([7]) } }
        try await makers.started.wait(for: "the first maker to start") { $0 == 1 }
        let second = Task { try await cache.speech(for: "Thank you.") { try await makers.make([7]) } }
        try await waitUntil { cache.waiters(for: "Thank you.") == 1 }
        #expect(cache.waiters(for: "Thank you.") == 1)
        first.cancel()
        makers.released.withLock { $0 = true }
        await #expect(throws: CancellationError.self) { try await first.value }
        #expect(try await second.value == [7])
        #expect(makers.started.withLock { $0 } == 2)   // the waiter made it
    }

    @Test func theLeastRecentlySaidTextGoesFirst() async throws {
        let cache = SpeechCache(capacity: 8)
        _ = try await cache.speech(for: "greeting") { [1, 1, 1] }
        _ = try await cache.speech(for: "question") { [2, 2, 2] }
        _ = try await cache.speech(for: "greeting") { Issue.record("greeting made again"); return [] }
        _ = try await cache.speech(for: "name read back") { [3, 3, 3] }   // 9 samples: one must go
        #expect(try await cache.speech(for: "greeting") { Issue.record("greeting dropped"); return [] } == [1, 1, 1])
        #expect(try await cache.speech(for: "question") { [4] } == [4])
        // Longer than the whole cache: said, never kept.
        #expect(try await cache.speech(for: "long") { Array(repeating: 5, count: 9) }.count == 9)
        #expect(try await cache.speech(for: "long") { [6] } == [6])
    }

    /// A call in virtual time makes a text another caller is making on real threads rather than
    /// wait for it: its run must not hang on work outside its clock.
    @Test func aCallInVirtualTimeNeverWaitsForAnothersSynthesis() async throws {
        let cache = SpeechCache(capacity: 1_000), makers = Makers()
        let realTime = Task { try await cache.speech(for: "Hello,") { try await makers.make([1]) } }
        try await makers.started.wait(for: "the real-time maker to start") { $0 == 1 }
        let executor = VirtualTimeExecutor()
        let made = try await executor.run { try await cache.speech(for: "Hello,") { [2] } }
        #expect(made == [2])
        #expect(cache.waiters(for: "Hello,") == 0, "nobody waited on the real-time maker")
        makers.released.withLock { $0 = true }
        #expect(try await realTime.value == [1])
    }
}
