import Glibc

/// Whether a port can be bound and a host name resolves, asked of the kernel and the resolver.
enum PortProbe {
    /// Nil when `host:port` can be bound now (the socket is closed again at once), else why not.
    static func bindProblem(host: String, port: Int, udp: Bool) -> String? {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(udp ? SOCK_DGRAM.rawValue : SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var found: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &found)
        guard status == 0, let address = found else { return "cannot resolve \(host): \(String(cString: gai_strerror(status)))" }
        defer { freeaddrinfo(found) }
        let fd = socket(address.pointee.ai_family, address.pointee.ai_socktype, 0)
        guard fd >= 0 else { return String(cString: strerror(errno)) }
        defer { close(fd) }
        var on: Int32 = 1
        // As the server binds: an address in TIME_WAIT is free to take.
        if !udp { setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size)) }
        guard bind(fd, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 else {
            return errno == EADDRINUSE ? "in use" : String(cString: strerror(errno))
        }
        return nil
    }

    static func resolves(_ host: String) -> Bool {
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, nil, &found) == 0 else { return false }
        freeaddrinfo(found)
        return true
    }
}
