import CoreMetrics
import NIOCore
import Testing
@testable import API

/// Review 2 (informational): the per-address connection cap counted single IPv6 addresses, and one
/// host is usually given a whole /64 — so an IPv6 peer is counted by its /64.
@Suite struct ConnectionTableTests {
    @Test func anIPv6PeerIsCountedByItsSlash64() throws {
        func key(_ address: String) throws -> String { ConnectionTable.key(for: try SocketAddress(ipAddress: address, port: 40_000)) }
        #expect(try key("2001:db8:1:2::5") == key("2001:db8:1:2:ffff:ffff:ffff:1"))
        #expect(try key("2001:db8:1:2::5") == "2001:db8:1:2::/64")
        #expect(try key("2001:db8:1:3::5") != key("2001:db8:1:2::5"))
        #expect(try key("203.0.113.7") == "203.0.113.7" && key("203.0.113.8") != key("203.0.113.7"))
        #expect(try key("::ffff:203.0.113.7") == "::ffff:203.0.113.7", "an IPv4-mapped address is one IPv4 peer")
        #expect(ConnectionTable.key(for: nil) == "?")
    }

    @Test func aSlash64SharesOneAddressesCap() throws {
        let table = ConnectionTable(maxTotal: 10, maxPerAddress: 2, metrics: NOOPMetricsHandler.instance)
        let a = ConnectionTable.key(for: try SocketAddress(ipAddress: "2001:db8::1", port: 1))
        let b = ConnectionTable.key(for: try SocketAddress(ipAddress: "2001:db8::2", port: 1))
        #expect(table.admit(a) && table.admit(b))
        #expect(!table.admit(a), "the third from the same /64 is over the cap")
        table.release(b)
        #expect(table.admit(a))
    }
}
