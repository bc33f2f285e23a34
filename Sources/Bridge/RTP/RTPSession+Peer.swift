import NIOCore

extension RTPSession.State {
    /// Whether RTP from `address` is the peer's: once latched, only the latched address; before,
    /// any address of the SDP address's family (latching may move the port and address, as NAT
    /// does, but not turn an IPv4 call into an IPv6 one).
    func hears(_ address: SocketAddress) -> Bool {
        if latched { return address == remote }
        guard let remote else { return true }
        return address.protocol == remote.protocol
    }

    /// RTCP: from the latched peer's IP address (its port is its own), or before latching from the SDP's family.
    func hearsControl(_ address: SocketAddress) -> Bool {
        guard let remote else { return true }
        return latched ? address.ipAddress == remote.ipAddress : address.protocol == remote.protocol
    }

    /// Whether RTCP from `address` shows the peer is still there (it resets the media timeout, as
    /// Asterisk's `rtptimeout` counts "RTP or RTCP"): only from the address the SDP or latching
    /// gave, so a stranger's reports cannot keep a dead call up.
    func isPeersControl(_ address: SocketAddress) -> Bool {
        guard let remote else { return false }
        return address.ipAddress == remote.ipAddress
    }
}
