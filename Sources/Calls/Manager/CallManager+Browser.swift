import Bridge
import Foundation
import Realtime

extension CallManager {
    /// A call from the dashboard's "Try it": the operator's browser is the caller, on the
    /// `browser` media stream, and the agent runs `request` (a template or purpose and questions,
    /// validated as a call placed over the API would be) exactly as it would on a phone call — the
    /// same session, pipeline and engine — and stores it with `direction: browser`.
    ///
    /// `announce` hears the stored call's id before the agent speaks, or why there is no call (a
    /// bad request, no engine, the call limit); then this returns when the call is over.
    public func answerBrowser(stream leg: any MediaStreamLeg, request: OutboundCallRequest, requestedBy: String,
                              announce: @Sendable (Result<String, any Error>) async -> Void) async {
        guard engineRoom > 0 else {
            await announce(.failure(Failure.conflict("the server is at its limit of calls at once; try again in a moment")))
            await leg.hangUp()
            return
        }
        let record: CallRecord
        do {
            record = try await store.insert(browserRecord(for: request, requestedBy: requestedBy)).call
        } catch {
            await announce(.failure(error))
            await leg.hangUp()
            return
        }
        let handle = LiveCall()
        live[record.outboundId] = handle
        defer { finished(record.outboundId) }
        await traced(record, handle: handle, at: record.answeredAt ?? settings.clock.date) {
            let context = await context(for: record)
            let engine: any ConversationEngine
            do { engine = try engines(context) } catch {
                await announce(.failure(error))
                await leg.hangUp()
                await storeEnd(of: record.outboundId, in: .failed, reason: "engine_unavailable: \(error)")
                return
            }
            await announce(.success(record.outboundId))
            // A browser has no carrier to hand the caller to: no transfer, no machine detection.
            _ = await converse(call: record, leg: leg, engine: engine, context: context, handle: handle)
        }
    }

    /// The call as `create` would queue it, answered now: the browser is on the line.
    private func browserRecord(for request: OutboundCallRequest, requestedBy: String) async throws -> CallRecord {
        var request = request
        // The numbers only label the call: the browser has none, the caller ID is the first allowed one.
        request.callerNumber = request.callerNumber.isEmpty ? (settings.allowedCallerIDs.first ?? "000") : request.callerNumber
        request.calleeNumber = "000"
        var template: CallTemplate?
        if let key = request.template { template = try await runnableTemplate(key) }
        var record = try record(for: request, template: template, requestedBy: requestedBy)
        record.outboundId = CallRecord.newID(direction: .browser)
        record.direction = .browser
        record.calleeNumber = "browser"
        record.state = .connected
        record.answeredAt = settings.clock.date
        record.startedAt = record.answeredAt
        record.attemptCount = 1
        record.retryOnNoAnswer = false
        record.transferTo = nil        // nobody to hand a browser to
        record.machineDetection = nil
        record.nodeId = settings.nodeID
        return record
    }
}
