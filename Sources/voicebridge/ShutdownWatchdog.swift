import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Makes SIGTERM and SIGINT stop the server even when Swift concurrency cannot.
///
/// Graceful shutdown (ServiceLifecycle) runs as tasks on the cooperative pool; if every pool thread
/// is blocked in a C call (issue 35: both were inside libsoxr), it never starts and the process
/// ignores SIGTERM until someone sends SIGKILL. The watchdog works outside the pool: a dispatch
/// signal source on its own queue hears the signal (ServiceLifecycle's sources still hear it too),
/// and a plain thread waits `timeout`. If the process is still alive then — or at a second signal —
/// it writes every thread's name, state, wait channel and the C functions on its stack to stderr
/// (`ThreadStacks`), so the stuck call can be named, and exits with status 70 (EX_SOFTWARE), not 0.
enum ShutdownWatchdog {
    static let exitStatus: Int32 = 70
    private static let queue = DispatchQueue(label: "voicebridge.shutdown-watchdog")
    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []
    nonisolated(unsafe) private static var signalled = false

    /// Call once, before the service group installs its own handlers.
    static func install(timeout: Int) {
        for signalNumber in [SIGTERM, SIGINT] {
            signal(signalNumber, SIG_IGN)   // delivered to the dispatch sources instead of killing
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
            source.setEventHandler { heard(signalNumber, timeout: timeout) }
            source.resume()
            sources.append(source)
        }
    }

    /// Runs on `queue`, so `signalled` has one writer.
    private static func heard(_ signalNumber: Int32, timeout: Int) {
        guard !signalled else {
            stop(reason: "a second signal (\(signalNumber)) arrived during shutdown")
        }
        signalled = true
        let timer = Thread {
            Thread.sleep(forTimeInterval: TimeInterval(timeout))
            stop(reason: "shutdown did not finish within http.shutdown_timeout_seconds (\(timeout) s)")
        }
        timer.name = "shutdown-watchdog"
        timer.start()
    }

    private static func stop(reason: String) -> Never {
        FileHandle.standardError.write(Data("voicebridge: \(reason); stopping now. Threads:\n".utf8))
        ThreadStacks.write(to: STDERR_FILENO)
        FileHandle.standardError.write(Data("voicebridge: exiting with status \(exitStatus)\n".utf8))
        _exit(exitStatus)
    }
}
