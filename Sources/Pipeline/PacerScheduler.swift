import Synchronization

/// One timer for every call's pacer: each 20 ms tick, every registered pacer sends its frame.
///
/// A thousand calls each sleeping on their own 20 ms timer cost the machine more than their audio
/// does; one absolute-schedule loop that walks the pacers costs a fraction of a microsecond per
/// call per tick. The scheduler's own task is owned by the server; a call registers its pacer
/// when media starts and unregisters it (or its pacer ends) when the call ends.
public final class PacerScheduler<Payload: Sendable>: Sendable {
    public typealias Sink = @Sendable (PacerOutput<Payload>) -> Void

    /// Work done on every tick; returns false when it is finished and can be dropped.
    public typealias Ticker = @Sendable () -> Bool

    private let entries = Mutex(Entries())
    /// The registered tickers, and the list a tick walks — rebuilt only when registration
    /// changes, not copied out of the dictionary on every tick.
    private struct Entries {
        var byID: [Int: Ticker] = [:]
        var list: [(id: Int, ticker: Ticker)]?
    }
    private let nextID = Atomic<Int>(0)
    private let stats = Mutex(TickStatistics())

    public init() {}

    @discardableResult
    public func register(_ pacer: Pacer<Payload>, sink: @escaping Sink) -> Int {
        register {
            guard !pacer.isDone else { return false }
            pacer.tick(sink)
            return true
        }
    }

    /// Any per-tick media work (a pacer plus a jitter-buffer release, say) on the shared grid.
    @discardableResult
    public func register(ticker: @escaping Ticker) -> Int {
        let id = nextID.add(1, ordering: .relaxed).newValue
        entries.withLock { $0.byID[id] = ticker; $0.list = nil }
        return id
    }

    public func unregister(_ id: Int) {
        entries.withLock { if $0.byID.removeValue(forKey: id) != nil { $0.list = nil } }
    }

    public var registeredCount: Int { entries.withLock { $0.byID.count } }
    public var statistics: TickStatistics { stats.withLock { $0 } }

    /// Ticks everything registered on `clock`, in the calling task, until cancelled. Pacers that
    /// are done are dropped. (A server ticks on its event loops' own timers instead — `run(on:)`
    /// in Bridge — so sends from the tick are direct writes on the loop that owns the sockets.)
    public func run<C: Clock & Sendable>(clock: C) async where C.Duration == Duration {
        var schedule = TickSchedule(clock: clock)
        while await schedule.waitForNextTick() {
            record(schedule.statistics)
            tickRegistered()
        }
    }

    /// Takes the grid's statistics after a tick. Every registered pacer sends at most one frame
    /// per tick: a late tick makes each of them late.
    public func record(_ current: TickStatistics) {
        let registered = registeredCount
        stats.withLock { s in
            let lateFrames = s.lateFrames + (current.lateTicks > s.lateTicks ? registered : 0)
            let audiblyLateFrames = s.audiblyLateFrames + (current.audiblyLateTicks > s.audiblyLateTicks ? registered : 0)
            s = current
            s.lateFrames = lateFrames
            s.audiblyLateFrames = audiblyLateFrames
        }
    }

    /// One tick of everything registered; tickers that are finished are dropped.
    public func tickRegistered() {
        let batch = entries.withLock { e in
            // In the order they registered: the same calls tick in the same order every run.
            if e.list == nil { e.list = e.byID.sorted { $0.key < $1.key }.map { ($0.key, $0.value) } }
            return e.list!
        }
        for (id, ticker) in batch where !ticker() {
            unregister(id)
        }
    }
}
