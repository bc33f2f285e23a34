import CoreMetrics
import NIOConcurrencyHelpers
import NIOCore

/// Live connections by address, shared by every connection of the server. An IPv6 client is
/// counted by its /64 (one host is usually given a whole /64, so single addresses cost nothing).
final class ConnectionTable: Sendable {
    let maxTotal: Int
    let maxPerAddress: Int
    private let counts = NIOLockedValueBox<(total: Int, byAddress: [String: Int])>((0, [:]))
    let refused: Counter
    /// Connections closed by one of the guard's deadlines.
    let timedOut: Counter

    init(maxTotal: Int, maxPerAddress: Int, metrics: any MetricsFactory) {
        self.maxTotal = maxTotal
        self.maxPerAddress = maxPerAddress
        refused = Counter(label: "voicebridge_http_connections_refused_total", dimensions: [], factory: metrics)
        timedOut = Counter(label: "voicebridge_http_connections_timed_out_total", dimensions: [], factory: metrics)
    }

    /// The key a peer is counted under: its IPv4 address, or its IPv6 /64.
    static func key(for address: SocketAddress?) -> String {
        guard let address else { return "?" }
        if case .v6(let v6) = address {
            var raw = v6.address.sin6_addr
            let bytes = withUnsafeBytes(of: &raw) { Array($0) }
            let mapped = bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF
            if !mapped {
                let groups = stride(from: 0, to: 8, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
                return groups.joined(separator: ":") + "::/64"
            }
        }
        return address.ipAddress ?? "?"
    }

    /// Takes a place for `address`; false (nothing taken) when a cap is reached.
    func admit(_ address: String) -> Bool {
        let admitted = counts.withLockedValue { counts -> Bool in
            guard counts.total < maxTotal, counts.byAddress[address, default: 0] < maxPerAddress else { return false }
            counts.total += 1
            counts.byAddress[address, default: 0] += 1
            return true
        }
        if !admitted { refused.increment() }
        return admitted
    }

    func release(_ address: String) {
        counts.withLockedValue { counts in
            counts.total -= 1
            let left = counts.byAddress[address, default: 1] - 1
            counts.byAddress[address] = left > 0 ? left : nil
        }
    }

    var live: Int { counts.withLockedValue { $0.total } }
}
