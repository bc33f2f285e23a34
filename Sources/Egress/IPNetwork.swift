import Foundation
import NIOCore

/// An address block (`10.0.0.0/8`, `fd00::/8`, or one address), matched byte by byte against a
/// resolved address. IPv4 and IPv6 blocks never match each other's addresses; an IPv4-mapped IPv6
/// address (`::ffff:10.0.0.1`) is matched as the IPv4 address it carries (see `IPAddressBytes`).
public struct IPNetwork: Sendable, Equatable, CustomStringConvertible {
    public let prefix: [UInt8]
    public let length: Int

    /// Parses `address[/length]`; nil when either part is not valid.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let bytes = IPAddressBytes(parsing: String(parts[0]).trimmingCharacters(in: CharacterSet(charactersIn: "[]"))) else { return nil }
        let bits = bytes.bytes.count * 8
        if parts.count == 2 {
            guard let length = Int(parts[1]), (0...bits).contains(length) else { return nil }
            self.length = length
        } else {
            length = bits
        }
        prefix = bytes.bytes
    }

    init(_ bytes: [UInt8], _ length: Int) {
        prefix = bytes
        self.length = length
    }

    public func contains(_ address: IPAddressBytes) -> Bool {
        guard address.bytes.count == prefix.count else { return false }
        var remaining = length
        for (a, p) in zip(address.bytes, prefix) where remaining > 0 {
            let mask: UInt8 = remaining >= 8 ? 0xFF : ~(0xFF >> UInt8(remaining))
            if a & mask != p & mask { return false }
            remaining -= 8
        }
        return true
    }

    public var description: String {
        let address = IPAddressBytes(bytes: prefix).description
        return "\(address)/\(length)"
    }
}

/// An IP address as its network-order bytes (4 or 16), read from text or a resolved socket address.
public struct IPAddressBytes: Sendable, Equatable, CustomStringConvertible {
    public let bytes: [UInt8]

    init(bytes: [UInt8]) { self.bytes = bytes }

    public init?(parsing text: String) {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
            return
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        bytes = withUnsafeBytes(of: &v6) { Array($0) }
    }

    public init?(_ address: SocketAddress) {
        switch address {
        case .v4(let a):
            var raw = a.address.sin_addr
            bytes = withUnsafeBytes(of: &raw) { Array($0) }
        case .v6(let a):
            var raw = a.address.sin6_addr
            bytes = withUnsafeBytes(of: &raw) { Array($0) }
        case .unixDomainSocket:
            return nil
        }
    }

    /// The IPv4 address an IPv6 address carries (`::ffff:a.b.c.d` mapped, `64:ff9b::a.b.c.d`
    /// NAT64): checked as that IPv4 address, since that is where the connection ends up.
    public var embeddedIPv4: IPAddressBytes? {
        guard bytes.count == 16 else { return nil }
        let mapped = bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF
        let nat64 = bytes[0..<12] == [0x00, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0]
        return mapped || nat64 ? IPAddressBytes(bytes: Array(bytes[12...])) : nil
    }

    public var description: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        _ = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &text, socklen_t(text.count)) }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
