import Foundation

extension CallManager {
    /// Registers this node, then renews its lease five times per lease period and, beside that,
    /// takes over the nodes whose lease ran out, until cancelled. A node that dies stops renewing;
    /// the first survivor to see its lease expired ends its live calls as `failed / node_lost`
    /// (retried as the policy says) and gives its claimed calls back to the queue.
    ///
    /// The renewal has a loop of its own: behind the look at the other nodes — a write that waits
    /// its turn among every node's writes when the database is busy — a live node's renewals came
    /// late enough that a survivor took it for dead (the cluster suite beside `make test`, 7 Dec).
    func keepLease() async {
        let node = settings.nodeID, clock = settings.clock
        do { try await store.nodes.register(node, now: clock.date) } catch {
            logger.error("could not register this node", metadata: ["node": "\(node)", "error": "\(error)"])
        }
        await withDiscardingTaskGroup { group in
            group.addTask { await self.renewLease() }
            await watchOtherNodes()
        }
    }

    /// `cluster.lease_seconds` as a duration: both loops look every fifth of it.
    private var leasePeriod: Duration { .milliseconds(Int64(settings.leaseSeconds * 1000)) }

    /// Renews this node's lease every fifth of the lease period; says so when a renewal took a
    /// third of the period or more, which is how a stalled or starved node shows before it is lost.
    private func renewLease() async {
        let node = settings.nodeID, clock = settings.clock, period = leasePeriod
        while !Task.isCancelled {
            let started = clock.now
            do {
                if try await !store.nodes.heartbeat(node: node, now: clock.date) {
                    logger.error("this node's lease had run out and another node took its calls over; registered again",
                                 metadata: ["node": "\(node)"])
                    await hangUpCallsTakenOver()
                }
            } catch {
                logger.warning("could not renew this node's lease", metadata: ["node": "\(node)", "error": "\(error)"])
            }
            let took = started.duration(to: clock.now)
            if took >= period / 3 {
                logger.warning("renewing this node's lease was slow", metadata: ["node": "\(node)", "ms": "\(took.totalMilliseconds)",
                                                                                 "lease_seconds": "\(settings.leaseSeconds)"])
            }
            try? await clock.sleep(for: period / 5)
        }
    }

    /// Looks at the other nodes every fifth of the lease period: whether there are any (how the
    /// queue loop waits), and whether one's lease ran out, to take its calls over.
    private func watchOtherNodes() async {
        let node = settings.nodeID, clock = settings.clock, retry = settings.retry, period = leasePeriod
        while !Task.isCancelled {
            do {
                let others = try await store.nodes.list().contains { $0.id != node }
                if otherNodesSeen != others { queueAlarm.ring() }   // how the loop waits changes
                otherNodesSeen = others
                let takeovers = try await store.takeOverLostNodes(survivor: node, lease: settings.leaseSeconds, now: clock.date) {
                    Self.retryTime(for: $0, endingIn: .failed, policy: retry, now: clock.date)
                }
                for takeover in takeovers {
                    logger.warning("took over a lost node", metadata: ["lost": "\(takeover.node)", "closed": "\(takeover.closed)",
                                                                       "released": "\(takeover.released)"])
                }
            } catch {
                logger.warning("could not look at the other nodes' leases", metadata: ["node": "\(node)", "error": "\(error)"])
            }
            try? await clock.sleep(for: period / 5)
        }
    }

    /// After this node stalled past its lease (the process stopped, the machine paused): hangs up
    /// the calls it still runs that a surviving node has since closed as `node_lost` or queued
    /// again, so the callee is not left talking to an agent whose call is over in the database.
    /// Their outcome is stored already; what this node writes about them is refused (`heldBy`).
    func hangUpCallsTakenOver() async {
        for (id, handle) in live {
            guard let call = try? await store.call(id: id) else { continue }
            let stillHeld = call.nodeId == settings.nodeID && (call.state.isLive || call.state == .queued)
            if stillHeld { continue }
            logger.warning("hanging up a call another node took over", metadata: ["call": "\(id)", "state": "\(call.state.rawValue)",
                                                                               "holder": "\(call.nodeId ?? "none")"])
            await end(handle)
        }
    }
}
