import Bridge
import Foundation
import Synchronization

/// When an outbox is worth reading: once a row was written to an outbox since the last read
/// (`written` moved: this process's commits), when the earliest pending row falls due, or every
/// `idleInterval` at the latest (rows other nodes wrote, or a restart left). A server whose
/// outboxes stay empty reads each twice a minute.
final class OutboxReadGate: Sendable {
    private let next: Mutex<(written: Int, at: ContinuousClock.Instant)>
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
        next = Mutex((-1, clock.now))
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
        let at = clock.now.advanced(by: wait)
        next.withLock { $0 = (written, at) }
    }

    /// The read failed: try again in a moment, not at once.
    func failed(written: Int) {
        let at = clock.now.advanced(by: Self.retryAfterFailure)
        next.withLock { $0 = (written, at) }
    }

    /// A retry falls due after `seconds`: read again by then.
    func due(in seconds: TimeInterval) {
        let at = clock.now.advanced(by: .seconds(seconds))
        next.withLock { $0.at = min($0.at, at) }
    }
}
