/// The ports the unit tests' servers use: nothing is a block a test keeps for itself.
public enum TestPorts {
    /// RTP for every server in the test process, one range: each pool starts at a random pair and
    /// `RTPSession.open` passes over a pair someone else holds (another server here, a port the
    /// kernel gave away), as two servers on one host do in production. Clear of every range the e2e
    /// suites beside the unit tests pick from: their RTP (51000–57999) and the ports they check
    /// free and then hand to a process (30000–32700 for SIP, Kamailio, a fake trunk; 22000–29999
    /// for sipp's media), where a pool could take a port between the check and the bind (it was
    /// 30000–50999 until 29 Nov). SIP, HTTP and the peers' own ports come from the kernel (port 0);
    /// sipp's SIP ports from 10000–11999 (`freeSippPort()`).
    public static let rtp = 33000...50999
}
