import Foundation

/// Runs work that blocks its thread — a child process waited for (`initdb`, `psql`, `sox`,
/// `espeak-ng`), a blocking read — on a Dispatch thread and awaits it there.
///
/// Swift's cooperative pool has one thread per core (two here). A test that blocks one of them
/// stalls every other test's timers: in a CI run, two tests waiting for PostgreSQL's `initdb` held
/// both threads long enough that a third test's SIP INVITE met Timer B with its answer unread.
public func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
    }
}
