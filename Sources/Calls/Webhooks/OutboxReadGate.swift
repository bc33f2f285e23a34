import Foundation
import Synchronization

/// When an outbox that is nearly always empty (`on_end` tools, post-call analyses) is worth
/// reading: once this process wrote a row since the last read (`written` moved), when the
/// earliest pending row falls due, or every `idleInterval` at the latest (rows other nodes wrote,
/// or a restart left). A server that never writes to it reads it twice a minute.
final class OutboxReadGate: Sendable {
    private let next = Mutex<(written: Int, at: ContinuousClock.Instant)>((-1, .now))
    let idleInterval: Duration

    init(idleInterval: Duration = .seconds(30)) {
        self.idleInterval = idleInterval
    }

    func isOpen(written: Int) -> Bool {
        let now = ContinuousClock.now
        return next.withLock { $0.written != written || now >= $0.at }
    }

    /// After a read that claimed `claimed` rows; `earliestDue` is the next pending row's time (read only when nothing was claimed).
    func read(written: Int, claimedAny: Bool, earliestDue: () async throws -> Date?) async rethrows {
        let now = ContinuousClock.now
        var at = now   // work is flowing: read again at the next poll
        if !claimedAny {
            let due = try await earliestDue().map { Duration.seconds(max(0, $0.timeIntervalSinceNow)) }
            at = now.advanced(by: min(due ?? idleInterval, idleInterval))
        }
        next.withLock { $0 = (written, at) }
    }

    /// A retry falls due after `seconds`: read again by then.
    func due(in seconds: TimeInterval) {
        let at = ContinuousClock.now.advanced(by: .seconds(seconds))
        next.withLock { $0.at = min($0.at, at) }
    }
}
