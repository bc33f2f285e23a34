import Foundation
import Glibc

extension Process {
    /// Starts the process with no signal blocked. A child inherits the signal mask of the thread
    /// that spawns it, and the test process's threads block TERM (/proc/<pid>/status SigBlk of a
    /// sipp started with `run()`): a TERM to sipp or baresip then did nothing, and a test waited
    /// out their own time limits — 38 s in one transfer test.
    func runWithSignalsUnblocked() throws {
        var all = sigset_t(), previous = sigset_t()
        sigfillset(&all)
        pthread_sigmask(SIG_UNBLOCK, &all, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        try run()   // posix_spawn on this thread: the child starts with this thread's mask
    }

    /// Stops a tool started under `timeout` (which makes itself a process group): TERM, which it
    /// passes on (the tool ends its calls: a BYE), then KILL to the group after `grace`.
    func stopGroup(grace: Duration = .seconds(2)) async {
        guard isRunning else { return }
        kill(processIdentifier, SIGTERM)
        let deadline = ContinuousClock.now.advanced(by: grace)
        while isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(50)) }
        if isRunning { kill(-processIdentifier, SIGKILL) }
    }
}
