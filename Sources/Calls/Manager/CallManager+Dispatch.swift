import Foundation

/// The dispatch loop: queued calls claimed and dialed as places free up, inbound calls answered,
/// the lease kept, and the waits between looks.
extension CallManager {
    /// Dispatches queued calls and answers inbound ones until cancelled.
    public func run() async {
        if let admission {
            await userAgent.setAdmission { [weak self] _ in admission.room(live: self?.liveCalls.load(ordering: .relaxed) ?? 0) > 0 ? .accept : .unavailable }
        }
        await withDiscardingTaskGroup { group in
            group.addTask { await self.answerInboundCalls() }
            group.addTask { await self.keepLease() }
            group.addTask { await self.store.listenForQueueChanges { [queueAlarm = self.queueAlarm] in queueAlarm.ring() } }
            let clock = settings.clock
            let started = clock.now
            while !Task.isCancelled {
                let running = await campaignTick(now: clock.date, monotonic: started.duration(to: clock.now).totalSeconds)
                for call in await dueCalls() {
                    live[call.outboundId] = LiveCall()
                    mostLiveAtOnce = max(mostLiveAtOnce, live.count)
                    group.addTask { await self.runAttempt(call.outboundId) }
                }
                await waitForWork(campaignsRunning: running)
            }
        }
    }

    /// How long a running campaign's pacing waits between looks (its dials are spread within it).
    static let campaignTickInterval: Duration = .milliseconds(100)
    /// How long an idle node waits at most when it cannot hear other nodes' queue change (SQLite
    /// shared by several nodes): calls they queue, and places they free, ring no bell here.
    static let idleRecheck: Duration = .seconds(1)

    /// Waits until there may be work: a call queued or a place freed here (the alarm rings), the
    /// next queued call's time (`scheduled_at`, a retry's `next_attempt_at`), another node's queue
    /// change (PostgreSQL NOTIFY, `listenForQueueChanges`), or a campaign's next pacing look
    /// (100 ms while one runs). Only where other nodes share the queue unheard (SQLite with a
    /// second node) does it still look: every 100 ms while a due call waits for a place, so each
    /// node gets its share, and every second otherwise. A lone node, or any node on PostgreSQL,
    /// sleeps until something happens.
    func waitForWork(campaignsRunning: Bool) async {
        let now = settings.clock.now
        let wall = settings.clock.date
        let unheard = queueSharedUnheard
        var wake: ContinuousClock.Instant?
        if campaignsRunning {
            wake = now.advanced(by: Self.campaignTickInterval)
        } else {
            var waitingForAPlace = false
            if unheard {
                do { waitingForAPlace = try await store.hasDueCalls(dialableCampaigns: dialableCampaigns, now: wall) } catch { waitingForAPlace = true }
                wake = now.advanced(by: waitingForAPlace ? Self.campaignTickInterval : Self.idleRecheck)
            }
            if !waitingForAPlace {
                var due: Date?
                // A read that fails is tried again soon rather than never.
                do { due = try await store.nextQueuedCallTime(after: wall) } catch { due = wall.addingTimeInterval(Self.idleRecheck.totalSeconds) }
                if let due {
                    // Rounded up: a wake a fraction of a millisecond early finds the call not yet due.
                    let at = now.advanced(by: .milliseconds(Int64((max(0, due.timeIntervalSince(wall)) * 1000).rounded(.up))))
                    wake = min(wake ?? at, at)
                }
            }
        }
        queueAlarm.arm(at: wake)
        await queueAlarm.wait()
    }

    /// Whether other nodes share the queue without this node hearing their changes (SQLite with a
    /// second node seen): then the loop looks every 100 ms while a call waits for a place.
    var queueSharedUnheard: Bool { !store.announcesEvents && otherNodesSeen }

    /// Queued calls that are due, best first, claimed for this node: as many as this node's engine
    /// admits now and the global `max_concurrent_calls` (counted in the database, over every node) allows.
    func dueCalls() async -> [CallRecord] {
        let claimed: [CallRecord]
        do {
            claimed = try await store.claimDueCalls(node: settings.nodeID, room: min(engineRoom, settings.maxConcurrentCalls),
                                                    maxConcurrent: settings.maxConcurrentCalls, dialableCampaigns: dialableCampaigns, now: settings.clock.date)
        } catch {
            logger.warning("could not claim queued calls", metadata: ["error": "\(error)"])
            return []
        }
        if !claimed.isEmpty { logger.debug("claimed queued calls", metadata: ["calls": "\(claimed.map(\.outboundId))", "live": "\(live.count)"]) }
        // Inbound calls may have been answered while the claim was written: what no longer fits goes back.
        let fits = engineRoom
        for call in claimed.dropFirst(fits) { try? await store.releaseClaim(id: call.outboundId, node: settings.nodeID) }
        return Array(claimed.prefix(fits))
    }
}
