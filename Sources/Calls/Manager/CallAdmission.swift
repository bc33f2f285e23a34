import Synchronization

/// How many local-engine calls this node takes at once, learnt from their turns.
///
/// The local engine shares the machine's cores with every call it holds, so what a machine serves
/// depends on the machine, the models and the conversations. A fixed number is either too low (cores
/// idle while calls wait) or too high (every caller waits seconds for each reply). Instead the limit
/// moves with the turn latency the calls in progress measure: after every `window` turns, their
/// median against `turnLatencyGoalMilliseconds` — over it, the limit comes down (a tenth of the calls, at least
/// one); under three quarters of it while the limit is what holds calls back, it goes up (by one, or
/// by a quarter when the median is half the goal or less), and a call waiting in the queue may go.
/// Between the two it stays, so it does not swing on one turn.
/// Calls beyond the limit wait queued (outbound) or get 503 (inbound), as beyond a fixed one.
///
/// One step per `window` turns makes a burst ramp up: 30 calls queued at once start with `start`
/// and are let in as the measured turns show room, rather than all at once and all slow.
public final class CallAdmission: Sendable {
    public struct Settings: Sendable, Equatable {
        /// Never more at once than this.
        public var most: Int
        /// The limit before any turn is measured.
        public var start: Int
        /// The median turn latency (caller's speech end → agent's first audio) to stay under; nil:
        /// the limit stays `most`.
        public var turnLatencyGoalMilliseconds: Int?
        /// Turns measured per decision.
        public var window = 10

        public init(most: Int, start: Int? = nil, turnLatencyGoalMilliseconds: Int? = nil) {
            self.most = max(1, most)
            self.start = min(self.most, max(1, start ?? most))
            self.turnLatencyGoalMilliseconds = turnLatencyGoalMilliseconds
        }

        /// `most` calls at once, whatever their turns measure.
        public static func fixed(_ most: Int) -> Settings { Settings(most: most) }
    }

    /// What `/metrics` shows.
    public struct Reading: Sendable, Equatable {
        public var limit: Int
        /// The median of the last full window of turns (nil before one).
        public var recentTurnLatencyMilliseconds: Int?
    }

    public let settings: Settings
    /// Rung when the limit goes up: a queued call may go now.
    private let raised: @Sendable () -> Void
    private let state: Mutex<State>

    private struct State {
        var limit: Int
        var window: [Int] = []
        var lastMedian: Int?
    }

    public init(settings: Settings, raised: @escaping @Sendable () -> Void = {}) {
        self.settings = settings
        self.raised = raised
        state = Mutex(State(limit: settings.start))
    }

    public var reading: Reading { state.withLock { Reading(limit: $0.limit, recentTurnLatencyMilliseconds: $0.lastMedian) } }
    public var limit: Int { state.withLock { $0.limit } }

    /// Places left for new calls when `live` are live.
    public func room(live: Int) -> Int { max(0, limit - live) }

    /// A turn of a call in progress took `milliseconds`; `live` calls are live now.
    public func turnMeasured(milliseconds: Int, live: Int) {
        guard let goal = settings.turnLatencyGoalMilliseconds else { return }
        let rose = state.withLock { s -> Bool in
            s.window.append(milliseconds)
            guard s.window.count >= settings.window else { return false }
            let median = s.window.sorted()[s.window.count / 2]
            s.window.removeAll(keepingCapacity: true)
            s.lastMedian = median
            if median > goal {
                // Down to a tenth fewer than are live (at least one fewer than the limit): the
                // calls over it finish as they would, and no new one starts until the turns recover.
                s.limit = max(1, min(s.limit - 1, live * 9 / 10))
                return false
            }
            guard median * 4 <= goal * 3, live >= s.limit, s.limit < settings.most else { return false }
            // Far under the goal (half of it or less) a quarter more at once, so a burst reaches the
            // machine's measure in a few windows; nearer it, one at a time.
            s.limit = min(settings.most, s.limit + (median * 2 <= goal ? max(1, s.limit / 4) : 1))
            return true
        }
        if rose { raised() }
    }
}
