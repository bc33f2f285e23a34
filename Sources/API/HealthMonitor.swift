import Calls
import Dispatch
import ServiceLifecycle
import Synchronization

/// Whether Swift's cooperative pool still runs tasks, and the database's last known state, kept
/// where a thread outside the pool can read them: `/healthz` is answered on the event loop
/// (`HealthEndpointHandler`), so it still answers when every pool thread is stuck in a C call —
/// then it says so instead of timing out.
///
/// `run` is the heartbeat: a task on the pool that stamps the time every second and asks the
/// database every other second. A stamp older than `stallAfter` means no pool thread has been free
/// to run it.
public final class HealthMonitor: Service, Sendable {
    /// How long the heartbeat may be late before the pool counts as stalled: calls' audio runs in
    /// 20 ms steps, so seconds of silence from the pool is an outage, not load.
    public static let stallAfter: Duration = .seconds(5)

    private let store: CallStore
    private let lastBeat: Atomic<UInt64>
    /// 0 not asked yet, 1 ok, 2 unavailable.
    private let database = Atomic<Int>(0)
    private let stopped = Atomic<Bool>(false)

    public init(store: CallStore) {
        self.store = store
        lastBeat = Atomic(0)
    }

    /// Seconds since the heartbeat last ran when that is longer than `stallAfter`, else nil; nil
    /// too before the heartbeat's first beat (a server whose services do not run, as in the
    /// in-process test client) and once it has ended with a graceful shutdown.
    public var poolStalledSeconds: Double? {
        let lastBeat = lastBeat.load(ordering: .relaxed)
        guard lastBeat != 0, !stopped.load(ordering: .relaxed) else { return nil }
        let since = Double(DispatchTime.now().uptimeNanoseconds &- lastBeat) / 1e9
        return since > Double(Self.stallAfter.components.seconds) ? since : nil
    }

    /// The database as the heartbeat last found it; nil before its first check.
    public var databaseOK: Bool? {
        switch database.load(ordering: .relaxed) {
        case 1: true
        case 2: false
        default: nil
        }
    }

    func beat(at uptimeNanoseconds: UInt64 = DispatchTime.now().uptimeNanoseconds) {
        lastBeat.store(uptimeNanoseconds, ordering: .relaxed)
    }

    public func run() async throws {
        var beats = 0
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            beat()
            if beats % 2 == 0 { database.store(await store.isHealthy() ? 1 : 2, ordering: .relaxed) }
            beats += 1
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(1)) }
        }
        stopped.store(true, ordering: .relaxed)
    }
}
