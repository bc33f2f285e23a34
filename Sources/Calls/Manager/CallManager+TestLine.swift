import Bridge
import Foundation
import Pipeline
import Simulation

extension CallManager {
    /// A manager beside this one for test runs (`TestLine`): the same settings, engines and store,
    /// but its calls reach `callee` over legs joined in memory and run on `clock`, paced by
    /// `scheduler`. It answers nothing and claims nothing from the queue; it only runs what
    /// `placeNow` gives it.
    nonisolated func testLineManager(callee: SimulatedCallee, line: LineBed?, clock: CallClock, scheduler: PacerScheduler<[UInt8]>) -> CallManager {
        var settings = settings
        settings.clock = clock
        settings.inProcessCallee = callee
        settings.inProcessLine = line
        settings.carrier = nil   // a test run calls the simulated callee, never a carrier
        return CallManager(settings: settings, store: store, userAgent: userAgent, scheduler: scheduler, engines: engines, logger: logger,
                           metrics: metrics)
    }

    /// Stores a call for `request`, claimed by this node as it is stored (so no node's queue takes
    /// it), runs its attempt at once, and returns the call as stored when that attempt ended.
    /// What test runs place: their calls neither wait behind the queue nor are dialed by another node.
    public func placeNow(_ request: OutboundCallRequest, requestedBy: String) async throws -> CallRecord {
        var built = try await record(for: request, requestedBy: requestedBy)
        built.nodeId = settings.nodeID
        let record = try await insert(built)
        let id = record.outboundId
        live[id] = LiveCall()
        mostLiveAtOnce = max(mostLiveAtOnce, live.count)
        await runAttempt(id)
        return try await store.call(id: id) ?? record
    }
}
