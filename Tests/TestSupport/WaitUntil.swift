/// Waits up to `seconds` for `condition`, looking every 20 ms, and returns either way: the check
/// after it says what it saw. For a state no event announces (a counter, a connection count);
/// never instead of an event a test can wait on.
public func waitUntil(seconds: Int = 5, _ condition: @Sendable () async -> Bool) async throws {
    let deadline = ContinuousClock.now.advanced(by: .seconds(seconds))
    while await !condition(), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
}
