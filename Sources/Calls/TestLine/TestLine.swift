import Bridge
import Foundation
import Pipeline
import Simulation

/// Where a test run places its calls: a call manager of its own beside the server's, whose calls
/// reach the simulated callee over legs joined in memory (`MemoryLeg`) and are dialed at once —
/// stored already claimed by this node, so no queue takes them and none waits behind the queue.
///
/// When the agent runs in this process (`engine.mode` local, echo or loopback) the calls run in
/// virtual time (`VirtualTimeExecutor`): as fast as the CPU allows, one core at most, and a persona
/// gives the same call however busy the machine is. An agent elsewhere (a realtime model, a
/// cascade's LLM, a bot) answers in real time, so then the line does too — as does a run that
/// measures turn latency, which virtual time only models.
public struct TestLine: Sendable {
    public enum Time: String, Sendable, Codable { case virtual, real }

    public let time: Time
    /// What the line does to the audio the agent hears (clean unless the run asked otherwise).
    public let condition: LineCondition?
    /// The manager the run's calls go through (`CallManager.placeNow`).
    public let manager: CallManager
    let scheduler: PacerScheduler<[UInt8]>
    let executor: VirtualTimeExecutor?
    let clock: CallClock

    /// `time` is what the run asks for; it runs in real time where the engine is not in-process.
    /// `line`: the noise and echo every call of the run is heard through.
    public init(beside main: CallManager, callee: SimulatedCallee, time: Time, line: LineBed? = nil) throws {
        let virtual = time == .virtual && Self.inProcessModes.contains(main.settings.engineMode)
        executor = virtual ? VirtualTimeExecutor() : nil
        clock = CallClock(virtualTime: executor)
        scheduler = PacerScheduler<[UInt8]>()
        manager = main.testLineManager(callee: try callee.onClock(clock), line: line, clock: clock, scheduler: scheduler)
        self.time = virtual ? .virtual : .real
        condition = line?.condition
    }

    /// The engine modes whose agent runs in this process, and so can run in virtual time.
    static let inProcessModes: Set<String> = ["local", "echo", "loopback"]

    /// How long a run took: on the calls' clock (`callTime`, virtual or real) and in real time.
    public struct Elapsed: Sendable {
        public var callTime: Duration
        public var realTime: Duration
    }

    /// Work that escaped the virtual time and came back at a moment of its own (should be none).
    public var strayWakeups: Int { executor?.strayWakeups ?? 0 }

    /// The time on the line's clock now: what a persona's call length is measured on.
    public var now: ContinuousClock.Instant { clock.now }

    /// Runs `body` with the line's media ticking; in virtual time, `body` and every call it places
    /// run on the line's executor.
    public func run<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> (value: T, elapsed: Elapsed) {
        let started = ContinuousClock.now
        let scheduler = scheduler, clock = clock
        let paced: @Sendable () async throws -> T = {
            try await withThrowingTaskGroup(of: T?.self) { group in
                group.addTask { await scheduler.run(clock: clock); return nil }
                let value = try await body()
                group.cancelAll()
                return value
            }
        }
        let value = if let executor { try await executor.run(paced) } else { try await paced() }
        let real = started.duration(to: .now)
        return (value, Elapsed(callTime: executor?.elapsed ?? real, realTime: real))
    }
}

extension CallSystem {
    /// A line for a test run, or nil when this server dials a gateway (test runs call the
    /// built-in simulated callee). With a `condition` that is not clean, the callee's voice
    /// saying `script` (every persona's lines) sets the noise's level and is what its voices say.
    public func testLine(time: TestLine.Time, condition: LineCondition? = nil, script: [String] = []) async throws -> TestLine? {
        guard let callee else { return nil }
        var bed: LineBed?
        if let condition, !condition.isClean {
            bed = try LineBed(condition: condition, voices: condition.noise == nil ? [] : await callee.voices(saying: script))
        }
        return try TestLine(beside: manager, callee: callee, time: time, line: bed)
    }
}
