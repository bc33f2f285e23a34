#if canImport(Glibc)
import Glibc
#endif
import NIOCore

/// The ICMP errors a UDP socket's datagrams drew (port or host unreachable), read from the
/// socket's error queue with the address each undelivered datagram was sent to.
///
/// Why: a SIP request sent over UDP to a port nobody listens on draws an ICMP port unreachable at
/// once, but an unconnected socket is told nothing of it unless `IP_RECVERR` is set — the INVITE
/// then waits for Timer B (32 s), and a 200 to a caller that has gone is repeated for Timer H.
/// With the option set, the kernel queues each error and raises the socket's error flag; the
/// queue must then be read (`MSG_ERRQUEUE`), or the flag stays raised.
///
/// Linux only; elsewhere nothing is enabled and nothing is read.
struct UDPErrorQueue: Sendable {
    typealias Undeliverable = @Sendable (_ address: SocketAddress, _ reason: String) -> Void

    let descriptor: CInt
    let undeliverable: Undeliverable

    /// Asks the kernel to queue ICMP errors on `descriptor` (a socket of `family`).
    static func enable(on descriptor: CInt, family: CInt) -> Bool {
        #if os(Linux)
        var on: CInt = 1
        let (level, option) = family == AF_INET6 ? (CInt(IPPROTO_IPV6), CInt(IPV6_RECVERR)) : (CInt(IPPROTO_IP), CInt(IP_RECVERR))
        return setsockopt(descriptor, level, option, &on, socklen_t(MemoryLayout<CInt>.size)) == 0
        #else
        return true
        #endif
    }

    /// Reads every queued error (on the socket's event loop, where nothing else reads it) and
    /// reports each; returns how many there were.
    @discardableResult
    func drain() -> Int {
        #if os(Linux)
        var count = 0
        var name = sockaddr_storage()
        var control = [UInt8](repeating: 0, count: 256)
        var payload = [UInt8](repeating: 0, count: 64)   // the start of the datagram that failed; not used
        while true {
            let received = payload.withUnsafeMutableBytes { payloadBytes in
                control.withUnsafeMutableBytes { controlBytes in
                    withUnsafeMutablePointer(to: &name) { namePointer in
                        var vector = iovec(iov_base: payloadBytes.baseAddress, iov_len: payloadBytes.count)
                        return withUnsafeMutablePointer(to: &vector) { vectorPointer in
                            var message = msghdr()
                            message.msg_name = UnsafeMutableRawPointer(namePointer)
                            message.msg_namelen = socklen_t(MemoryLayout<sockaddr_storage>.size)
                            message.msg_iov = vectorPointer
                            message.msg_iovlen = 1
                            message.msg_control = controlBytes.baseAddress
                            message.msg_controllen = controlBytes.count
                            let result = recvmsg(descriptor, &message, CInt(MSG_ERRQUEUE) | CInt(MSG_DONTWAIT))
                            return (result, message.msg_controllen)
                        }
                    }
                }
            }
            guard received.0 >= 0 else { break }   // EAGAIN: the queue is empty
            count += 1
            guard let address = Self.address(name) else { continue }
            undeliverable(address, Self.reason(control: control.prefix(received.1)))
        }
        return count
        #else
        return 0
        #endif
    }

    /// The original destination, from the message's name.
    static func address(_ name: sockaddr_storage) -> SocketAddress? {
        let family = CInt(name.ss_family)
        return withUnsafeBytes(of: name) { bytes in
            switch family {
            case AF_INET: SocketAddress(bytes.load(as: sockaddr_in.self))
            case AF_INET6: SocketAddress(bytes.load(as: sockaddr_in6.self))
            default: nil
            }
        }
    }

    /// The error the kernel gives (`sock_extended_err.ee_errno`, the first field of the control
    /// message's data), as text: "Connection refused" for an ICMP port unreachable.
    static func reason(control: ArraySlice<UInt8>) -> String {
        // struct cmsghdr { size_t cmsg_len; int cmsg_level; int cmsg_type; } then the data, aligned to size_t.
        let header = MemoryLayout<Int>.size + 2 * MemoryLayout<CInt>.size
        guard control.count >= header + MemoryLayout<UInt32>.size else { return "unreachable" }
        let errno = control.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: header, as: UInt32.self) }
        return String(cString: strerror(CInt(errno)))
    }
}
