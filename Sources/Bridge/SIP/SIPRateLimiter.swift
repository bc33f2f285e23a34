import NIOCore
import Pipeline
import Synchronization

/// Caps the requests one source address may start: a token bucket per IP address, checked on the
/// socket's event loop before a datagram is queued or parsed, so a flood from one address cannot
/// fill the receive queue in front of everybody else's calls.
///
/// Only requests that start something count (INVITE, OPTIONS, REGISTER, …). Responses, ACK, CANCEL
/// and BYE belong to transactions and dialogs already open and always pass. What is over the limit
/// is dropped without an answer: answering a flood would amplify it.
public final class SIPRateLimiter: Sendable {
    public struct Limit: Sendable, Equatable {
        /// Sustained requests per second per source address; 0 turns the limit off.
        public var requestsPerSecond: Double
        /// How many may come at once after a quiet spell.
        public var burst: Double
        /// Addresses never limited: a proxy such as Kamailio, or the trunk, that speaks for many callers.
        public var exempt: Set<String>

        public init(requestsPerSecond: Double = 50, burst: Double = 100, exempt: Set<String> = []) {
            self.requestsPerSecond = requestsPerSecond
            self.burst = burst
            self.exempt = exempt
        }
    }

    struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    /// How many addresses are remembered; past that, those whose bucket has refilled are forgotten
    /// (and if every one is busy, all are: the table stays bounded whatever the sources).
    static let maximumSources = 4096

    public let limit: Limit
    private let buckets = Mutex<[String: Bucket]>([:])

    public init(limit: Limit) { self.limit = limit }

    /// True when `bytes` from `source` may go on; false when it is a request over its source's limit.
    public func admits(_ bytes: [UInt8], from source: SocketAddress, now: ContinuousClock.Instant = .now) -> Bool {
        guard limit.requestsPerSecond > 0, Self.startsSomething(bytes), let ip = source.ipAddress, !limit.exempt.contains(ip) else { return true }
        return buckets.withLock { buckets in
            var bucket = buckets[ip] ?? Bucket(tokens: limit.burst, updated: now)
            bucket.tokens = min(limit.burst, bucket.tokens + (now - bucket.updated).totalSeconds * limit.requestsPerSecond)
            bucket.updated = now
            let admitted = bucket.tokens >= 1
            if admitted { bucket.tokens -= 1 }
            if buckets[ip] == nil, buckets.count >= Self.maximumSources { forgetIdle(&buckets, now: now) }
            buckets[ip] = bucket
            return admitted
        }
    }

    var sourceCount: Int { buckets.withLock { $0.count } }

    private func forgetIdle(_ buckets: inout [String: Bucket], now: ContinuousClock.Instant) {
        let refill = limit.burst / limit.requestsPerSecond
        buckets = buckets.filter { (now - $0.value.updated).totalSeconds < refill }
        if buckets.count >= Self.maximumSources { buckets.removeAll(keepingCapacity: true) }
    }

    /// A request (not a response) other than ACK, CANCEL or BYE, judged from its first bytes.
    static func startsSomething(_ bytes: [UInt8]) -> Bool {
        var i = 0
        while i < bytes.count, bytes[i] == 13 || bytes[i] == 10 { i += 1 }
        guard i < bytes.count else { return false }   // a keep-alive
        let method = bytes[i..<min(bytes.count, i + 7)]
        for passing in [Self.response, Self.ack, Self.cancel, Self.bye] where method.starts(with: passing) { return false }
        return true
    }

    static let response = Array("SIP/".utf8), ack = Array("ACK ".utf8), cancel = Array("CANCEL ".utf8), bye = Array("BYE ".utf8)
}
