import NIOCore
import NIOPosix

extension Task where Success == Never, Failure == Never {
    /// Suspends for `duration` on an event loop's timer; throws `CancellationError` when the task
    /// is cancelled first — like `Task.sleep(for:)`, except that cancelling gives the timer back.
    ///
    /// Why: on Linux a cancelled `Task.sleep` resumes at once but its job stays queued in the
    /// runtime until the deadline, holding the sleeping task (≈ 740 bytes). A timer armed per call
    /// and nearly always cancelled (a call's maximum duration, a ring timeout) then holds memory
    /// for as long as the limit, for every call that ended in that time: at 400 calls a minute and
    /// an hour's limit, 18 MB. A cancelled NIO timer is taken off its loop's queue at once.
    ///
    /// `loop`: by default one fixed loop of the shared group — never `next()`: every call arms a
    /// timer, and a `next()` between two accepted connections would make the server's round robin
    /// and the timers' march in step, putting every media stream on the same loop.
    public static func sleepOnEventLoop(for duration: Duration, on loop: (any EventLoop)? = nil) async throws {
        let loop = loop ?? timerLoop
        let nanoseconds = duration.components.seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let wait: TimeAmount = nanoseconds.overflow ? .hours(24 * 365) : .nanoseconds(max(0, nanoseconds.partialValue &+ duration.components.attoseconds / 1_000_000_000))
        let timer = loop.scheduleTask(in: wait) {}
        try await withTaskCancellationHandler {
            do {
                try await timer.futureResult.get()
            } catch EventLoopError.cancelled {
                throw Swift.CancellationError()
            }
        } onCancel: {
            timer.cancel()
        }
    }
}

/// The loop for timers armed off any loop (chosen once).
private let timerLoop = MultiThreadedEventLoopGroup.singleton.next()
