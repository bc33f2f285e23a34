/// Waits up to `seconds` for `condition`, looking every 20 ms, and returns either way: the check
/// after it says what it saw. Only for a state no event announces (a count inside the product, the
/// kernel's socket table); a value the test itself keeps is a `Locked`, whose `wait` ends at the change.
public func waitUntil(seconds: Int = 5, _ condition: @Sendable () async -> Bool) async throws {
    let deadline = ContinuousClock.now.advanced(by: .seconds(seconds))
    while await !condition(), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
}
