import Foundation
import Glibc

extension Process {
    /// Kills a tool started under `timeout` (which makes itself a process group) and its child.
    /// Not SIGTERM: children of the test process inherit its threads' signal mask, which blocks
    /// TERM (/proc/<pid>/status SigBlk of a sipp started here), so a TERM to sipp or baresip did
    /// nothing and a test waited out their own time limits — 38 s in one transfer test.
    func killGroup() {
        guard isRunning else { return }
        kill(-processIdentifier, SIGKILL)
    }
}
