import Pipeline
import Synchronization

/// Every call's pipeline meters summed by side and stage, for `/metrics`: live calls are read
/// where they run, and a call's final figures are kept in the totals when it ends, so the sums
/// only ever grow (Prometheus counters).
public final class PipelineStatistics: Sendable {
    private struct State {
        var live: [ObjectIdentifier: PipelineMeters] = [:]
        var finished: [String: StageMeter.Snapshot] = [:]
    }
    private let state = Mutex(State())

    public init() {}

    func started(_ meters: PipelineMeters) {
        state.withLock { $0.live[ObjectIdentifier(meters)] = meters }
    }

    func ended(_ meters: PipelineMeters) {
        let final = meters.snapshots
        state.withLock { s in
            s.live[ObjectIdentifier(meters)] = nil
            for snapshot in final { Self.add(snapshot, to: &s.finished) }
        }
    }

    /// Per side and stage, sorted by side, then stage name.
    public var totals: [StageMeter.Snapshot] {
        let (live, finished) = state.withLock { s in (Array(s.live.values), s.finished) }
        var sums = finished
        for meters in live { for snapshot in meters.snapshots { Self.add(snapshot, to: &sums) } }
        return sums.values.sorted { ($0.side, $0.stage) < ($1.side, $1.stage) }
    }

    private static func add(_ snapshot: StageMeter.Snapshot, to sums: inout [String: StageMeter.Snapshot]) {
        sums["\(snapshot.side)/\(snapshot.stage)", default: StageMeter.Snapshot(stage: snapshot.stage, side: snapshot.side)].add(snapshot)
    }
}
