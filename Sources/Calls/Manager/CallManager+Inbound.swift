import Bridge
import Dialogue
import Foundation
import Pipeline
import Realtime

/// Seed 001's answer mode: calls that come in — over SIP, or as a provider's media stream — are
/// answered by the same agent, stored like any other call, with the inbound profile.
extension CallManager {
    func answerInboundCalls() async {
        await withDiscardingTaskGroup { group in
            for await sipCall in userAgent.incomingCalls {
                group.addTask { await self.answer(sipCall) }
            }
        }
    }

    func answer(_ sipCall: SIPCall) async {
        await answer(caller: sipCall.remoteNumber, callee: sipCall.localNumber, externalID: sipCall.callID) { record, engine, context, handle in
            await self.converse(call: record, sipCall: sipCall, engine: engine, context: context, handle: handle)
        } hangUp: {
            await sipCall.hangUp()
        }
    }

    /// A provider's inbound media stream, answered as its `start` describes it: the caller and the
    /// number called from its parameters (`unknown` when it names no caller), its call id as the
    /// call's external id.
    public func answer(stream leg: any MediaStreamLeg, start: MediaStreamStart) async {
        let caller = start.customParameters["from"].flatMap { $0.isEmpty ? nil : $0 } ?? "unknown"
        await answer(stream: leg, caller: caller, callee: start.customParameters["to"] ?? "", externalID: start.callSid)
    }

    /// A media stream that arrived on its own (a Twilio `<Connect><Stream>`): an inbound call
    /// run with the inbound profile, stored like any other. Returns when the call is over.
    /// Beyond `sip.max_inbound_calls` inbound streams, or the engine's call limit, the stream is
    /// closed unanswered and nothing is stored, as an INVITE then gets 503.
    public func answer(stream leg: any MediaStreamLeg, caller: String, callee: String, externalID: String) async {
        guard inboundStreams < settings.maxInboundCalls, engineRoom > 0 else {
            logger.warning("an inbound media stream refused: at the limit of calls at once",
                           metadata: ["streams": "\(inboundStreams)", "live": "\(live.count)"])
            metrics.refusedInbound()
            await leg.hangUp()
            return
        }
        inboundStreams += 1
        defer { inboundStreams -= 1 }
        await answer(caller: caller, callee: callee, externalID: externalID) { record, engine, context, handle in
            await self.converse(call: record, leg: leg, engine: engine, context: context, handle: handle)
        } hangUp: {
            await leg.hangUp()
        }
    }

    private func answer(caller: String, callee: String, externalID: String,
                        converse: (CallRecord, any ConversationEngine, ConversationContext, LiveCall) async -> Void, hangUp: () async -> Void) async {
        var built = await inboundRecord(caller: caller, callee: callee)
        built.state = .connected
        built.answeredAt = settings.clock.date
        built.startedAt = built.answeredAt
        built.attemptCount = 1
        built.callId = externalID
        built.nodeId = settings.nodeID
        let record: CallRecord
        do {
            record = try await store.insert(built).call
        } catch {
            logger.error("could not store an inbound call", metadata: ["error": "\(error)"])
            await hangUp()
            return
        }
        let handle = LiveCall()
        live[record.outboundId] = handle
        defer { finished(record.outboundId) }
        await traced(record, handle: handle, at: built.answeredAt ?? settings.clock.date) {
            let engine: any ConversationEngine
            let context = await context(for: record)
            do { engine = try engines(context) } catch {
                await hangUp()
                await storeEnd(of: record.outboundId, in: .failed, reason: "engine_unavailable: \(error)")
                return
            }
            await converse(record, engine, context, handle)
        }
    }
}

extension CallManager {
    /// An inbound call as its number's route says (`inbound.routes`): the route's own lines, then
    /// its template's, then the inbound defaults; a bot if the route or template names one.
    func inboundRecord(caller: String, callee: String) async -> CallRecord {
        let inbound = settings.inbound
        let route = inbound.route(for: callee, numbers: store.numbers)
        var template: CallTemplate?
        if let key = route?.template { template = try? await store.template(key) }
        let fill = { (text: String) in Placeholders.fill(text, with: template?.variables ?? [:]) }
        var record = CallRecord(outboundId: CallRecord.newID(direction: .inbound), direction: .inbound,
                                callerNumber: caller, calleeNumber: callee,
                                callerDisplayName: route?.displayName ?? inbound.displayName,
                                purpose: route?.purpose ?? template.map { fill($0.purpose) } ?? inbound.purpose,
                                questions: route?.questions ?? template?.questions.map(fill) ?? inbound.questions,
                                maxDuration: settings.maxCallDurationSeconds,
                                retryOnNoAnswer: false, maxRetries: 0,   // the caller's call: nobody dials it again
                                createdAt: settings.clock.date)
        record.greeting = route?.greeting ?? template?.greeting.map(fill)
        record.closing = template?.closing.map(fill)
        record.voice = template?.voice
        record.language = template?.language   // a Korean line's template answers in Korean
        record.botUrl = route?.botURL ?? template?.botURL
        record.tools = template?.tools
        record.mcpServers = template?.mcpServers
        record.knowledge = template?.knowledge
        record.noiseSuppression = template?.noiseSuppression
        record.templateId = template?.id
        record.templateVersion = template?.version
        return record
    }
}
