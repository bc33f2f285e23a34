/// The ports the unit tests' servers use: nothing is a block a test keeps for itself.
public enum TestPorts {
    /// RTP for every server in the test process, one range: each pool starts at a random pair and
    /// `RTPSession.open` passes over a pair someone else holds (another server here, a port the
    /// kernel gave away), as two servers on one host do in production. Below the e2e suites'
    /// ranges (51000–57999), which run beside the unit tests. SIP, HTTP and the peers' own ports
    /// come from the kernel (port 0, `freeUDPPort()`).
    public static let rtp = 30000...50999
}
