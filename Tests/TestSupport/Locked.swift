import Synchronization

/// A value several test tasks update: a Mutex in a class, so closures can share it.
public final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    public init(_ value: Value) { mutex = Mutex(value) }

    public func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        try mutex.withLock { try body(&$0) }
    }

    public var value: Value { mutex.withLock { $0 } }
}

/// Runs `body`, failing with `TimedOut` if it takes longer than `limit` — so a test that waits
/// for an event that never comes fails instead of hanging the suite.
public func withTimeout<T: Sendable>(_ limit: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: limit)
            throw TimedOut(limit: limit)
        }
        defer { group.cancelAll() }
        return try await group.next()!
    }
}

public struct TimedOut: Error, CustomStringConvertible {
    public let limit: Duration
    public var description: String { "timed out after \(limit)" }
}
