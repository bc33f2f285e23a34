import Bridge
import Foundation
import Synchronization

/// When an outbox is worth reading: once a row was written to an outbox since the last read
/// (`written` moved: this process's commits), when the earliest pending row falls due, or every
/// `idleInterval` at the latest (rows other nodes wrote, or a restart left). A server whose
/// outboxes stay empty reads each twice a minute.
final class OutboxReadGate: Sendable {
    private struct State {
        var written: Int
        var at: ContinuousClock.Instant
        /// The earliest retry a send scheduled since the last read ended. A read's `earliestDue` may
        /// have looked before that retry was stored, so the read keeps it rather than wait past it
        /// (a retry 0.2 s away was read 30 s later, the idle interval, when its attempt ended during
        /// the read: a test beside busy loops, 4 Dec).
        var dueSinceRead: ContinuousClock.Instant?
    }
    private let next: Mutex<State>
    let idleInterval: Duration
    let clock: CallClock
    /// How long after a failed read (the database) the outbox is read again.
    static let retryAfterFailure: Duration = .seconds(1)
    /// A row due that a read did not claim (another node's read holds it) is looked for again
    /// after this, not at once.
    static let dueButNotClaimed: Duration = .milliseconds(250)

    init(idleInterval: Duration = .seconds(30), clock: CallClock = .continuous) {
        self.idleInterval = idleInterval
        self.clock = clock
        next = Mutex(State(written: -1, at: clock.now))
    }

    func isOpen(written: Int) -> Bool {
        let now = clock.now
        return next.withLock { $0.written != written || now >= $0.at }
    }

    /// When it opens if nothing is written meanwhile.
    var nextRead: ContinuousClock.Instant { next.withLock { $0.at } }

    /// After a read that claimed `claimed` rows; `earliestDue` is the next pending row's time (read only when nothing was claimed).
    func read(written: Int, claimedAny: Bool, earliestDue: () async throws -> Date?) async rethrows {
        var wait = Duration.zero   // work is flowing: read again at once
        if !claimedAny {
            let due = try await earliestDue().map { max(Self.dueButNotClaimed, .seconds($0.timeIntervalSinceNow)) }
            wait = min(due ?? idleInterval, idleInterval)
        }
        readEnded(written: written, next: clock.now.advanced(by: wait))
    }

    /// The read failed: try again in a moment, not at once.
    func failed(written: Int) {
        readEnded(written: written, next: clock.now.advanced(by: Self.retryAfterFailure))
    }

    /// A retry falls due after `seconds`: read again by then.
    func due(in seconds: TimeInterval) {
        let at = clock.now.advanced(by: .seconds(seconds))
        next.withLock {
            $0.at = min($0.at, at)
            $0.dueSinceRead = min($0.dueSinceRead ?? at, at)
        }
    }

    private func readEnded(written: Int, next at: ContinuousClock.Instant) {
        next.withLock { $0 = State(written: written, at: min(at, $0.dueSinceRead ?? at)) }
    }
}
