import Bridge
import Dialogue
import Foundation
import Logging
import Realtime

/// Twilio as the outbound carrier (`carrier: twilio`, seed 002): the call is placed through the
/// REST API with TwiML that connects its media stream back to `/twilio/stream`, carrying the
/// call's id as a `<Parameter>`. Twilio's status callbacks move the call through ringing to its
/// end; the media stream, once it comes, is the call's leg, run by the same session as a SIP leg.
public struct TwilioCarrier: Sendable {
    public var calls: TwilioCalls
    /// `http.public_url`: where Twilio reaches the callbacks and the stream.
    public var publicURL: String
    /// Twilio's `From` when set; otherwise the call's caller number.
    public var fromNumber: String?
    public var machineDetection = false

    public init(calls: TwilioCalls, publicURL: String, fromNumber: String? = nil, machineDetection: Bool = false) {
        self.calls = calls
        self.publicURL = publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL
        self.fromNumber = fromNumber
        self.machineDetection = machineDetection
    }

    public func statusCallbackURL(for id: String) -> String { "\(publicURL)/twilio/call-status?outbound_id=\(id)" }
    public func machineDetectionURL(for id: String) -> String { "\(publicURL)/twilio/amd?outbound_id=\(id)" }

    /// `<Connect><Stream>` back here, the call's id and numbers as parameters.
    public func twiml(for call: CallRecord) -> String {
        TwiML.connectStream(publicBase: publicURL, parameters: [("outbound_id", call.outboundId), ("from", call.callerNumber), ("to", call.calleeNumber)])
    }

    /// A final `CallStatus` as the call's state; nil for one that is not final.
    static func finalState(_ status: String) -> (CallState, String)? {
        switch status {
        case "busy": (.busy, "busy")
        case "no-answer": (.noAnswer, "no_answer")
        case "canceled": (.cancelled, "cancelled")
        case "failed": (.failed, "twilio: the call failed")
        case "completed": (.failed, "twilio: the call ended before its media stream connected")
        default: nil
        }
    }

    /// An AMD verdict as `answered_by`: human, machine or unknown.
    public static func answeredBy(_ verdict: String) -> String {
        if verdict == "human" { return "human" }
        if verdict.hasPrefix("machine") || verdict == "fax" { return "machine" }
        return "unknown"
    }
}

/// What reaches a Twilio call's attempt while it waits.
enum TwilioCallEvent: Sendable {
    /// A status callback: the call it is about (`CallSid`), its status and its sequence number.
    case status(String, sequence: Int, callSid: String)
    /// The call's media stream; `done` is resumed when the call is over.
    case stream(any MediaStreamLeg, done: CheckedContinuation<Void, Never>)
    case timedOut
}

extension CallManager {
    /// A Twilio call's transfer: its TwiML becomes a `<Dial>` to the target (REST update, PROTOCOLS-2
    /// §1.5) — the stream ends and Twilio dials; how that goes is Twilio's to report.
    static func twilioTransfer(sid: String, carrier: TwilioCarrier, callerNumber: String, logger: Logger) -> CallTransfer {
        { target in
            do {
                try await carrier.calls.redirect(sid: sid, twiml: TwiML.dial(target, callerID: carrier.fromNumber ?? callerNumber))
                return .finished(.handedOff)
            } catch {
                logger.warning("Twilio would not take the call to <Dial>", metadata: ["sid": "\(sid)", "error": "\(error)"])
                return .finished(.failed)
            }
        }
    }

    /// One attempt through Twilio: create, follow the status callbacks, converse on the stream.
    func runTwilioAttempt(_ call: CallRecord, carrier: TwilioCarrier, engine: any ConversationEngine, context: ConversationContext, handle: LiveCall) async {
        let id = call.outboundId
        let (events, input) = AsyncStream.makeStream(of: TwilioCallEvent.self, bufferingPolicy: .bufferingNewest(32))
        twilioWaiters[id] = input
        await withTaskGroup(of: Void.self) { group in
            // Twilio's own Timeout ends an unanswered call; this guards against callbacks that never come.
            group.addTask { [ringTimeout = settings.ringTimeout, clock = settings.clock] in
                try? await clock.sleep(for: ringTimeout + .seconds(60))
                if !Task.isCancelled { input.yield(.timedOut) }
            }
            await followTwilioCall(call, carrier: carrier, engine: engine, context: context, handle: handle, events: events)
            group.cancelAll()
        }
        await closeTwilioWaiter(id, input, events)
    }

    /// Nothing more reaches the waiter `key`; a stream that came too late is hung up.
    func closeTwilioWaiter(_ key: String, _ input: AsyncStream<TwilioCallEvent>.Continuation, _ events: AsyncStream<TwilioCallEvent>) async {
        twilioWaiters[key] = nil
        input.finish()
        for await case .stream(let leg, let done) in events {
            await leg.hangUp()
            done.resume()
        }
    }

    private func followTwilioCall(_ call: CallRecord, carrier: TwilioCarrier, engine: any ConversationEngine, context: ConversationContext, handle: LiveCall,
                                  events: AsyncStream<TwilioCallEvent>) async {
        let id = call.outboundId
        let sid: String
        do {
            sid = try await carrier.calls.create(.init(
                to: call.calleeNumber, from: carrier.fromNumber ?? call.callerNumber, twiml: carrier.twiml(for: call),
                statusCallback: carrier.statusCallbackURL(for: id), timeoutSeconds: Int(settings.ringTimeout.totalSeconds),
                machineDetectionCallback: carrier.machineDetection ? carrier.machineDetectionURL(for: id) : nil))
        } catch {
            await fail(call, state: .failed, reason: "\(error)")
            return
        }
        handle.twilioSID.withLock { $0 = sid }
        try? await store.setSIPCallID(callID: id, sipCallID: sid)
        if handle.cancelRequested.load(ordering: .relaxed) { await cancelTwilioCall(sid, carrier: carrier) }
        var lastSequence = -1
        for await event in events {
            switch event {
            case .status(let status, let sequence, let callSid):
                // Callbacks can arrive out of order, and late: an earlier attempt's reports under the same id.
                guard callSid == sid, sequence > lastSequence else { continue }
                lastSequence = sequence
                if status == "ringing", (try? await store.call(id: id))?.state == .dialing { _ = try? await transition(id, to: .ringing) }
                if let (state, reason) = TwilioCarrier.finalState(status) {
                    await fail(call, state: state, reason: handle.cancelRequested.load(ordering: .relaxed) && state == .cancelled ? "cancelled by operator" : reason)
                    return
                }
            case .stream(let leg, let done):
                _ = try? await transition(id, to: .connected)
                let transfer = Self.twilioTransfer(sid: sid, carrier: carrier, callerNumber: call.callerNumber, logger: logger)
                let ending = await converse(call: call, leg: leg, engine: engine, context: context, handle: handle, transfer: transfer,
                                            warmTransfer: twilioWarmTransfer(for: call, carrier: carrier))
                done.resume()
                // The stream's socket is closed; an ending on our side also ends the call at Twilio
                // (not a transfer: the call now runs the <Dial>).
                if ending != .remoteHangup, ending != .transferred {
                    do { try await carrier.calls.update(sid: sid, status: "completed") } catch {
                        logger.warning("could not complete the Twilio call", metadata: ["call": "\(id)", "sid": "\(sid)", "error": "\(error)"])
                    }
                }
                return
            case .timedOut:
                await cancelTwilioCall(sid, carrier: carrier)
                await fail(call, state: .failed, reason: "twilio: no media stream within the ring timeout")
                return
            }
        }
    }

    func cancelTwilioCall(_ sid: String, carrier: TwilioCarrier) async {
        do { try await carrier.calls.update(sid: sid, status: "canceled") } catch {
            logger.warning("could not cancel the Twilio call", metadata: ["sid": "\(sid)", "error": "\(error)"])
        }
    }

    /// A status callback (signature checked by the caller) about the Twilio call `callSid`.
    public func twilioStatus(outboundID: String, callSid: String, status: String, sequence: Int) {
        twilioWaiters[outboundID]?.yield(.status(status, sequence: sequence, callSid: callSid))
    }

    /// An asynchronous answering-machine verdict.
    public func twilioMachineDetection(outboundID: String, verdict: String) async {
        let answeredBy = TwilioCarrier.answeredBy(verdict)
        do {
            try await store.setAnsweredBy(callID: outboundID, answeredBy)
            try await store.appendEvent(callID: outboundID, type: "answered_by", payload: ["answered_by": answeredBy, "verdict": verdict])
        } catch {
            logger.warning("could not store an AMD verdict", metadata: ["call": "\(outboundID)", "error": "\(error)"])
        }
    }

    /// The media stream of an outbound Twilio call: the call's leg until it ends. False when no
    /// call of ours waits for it (the caller hangs the stream up).
    public func answerOutbound(stream leg: any MediaStreamLeg, outboundID: String) async -> Bool {
        guard let waiter = twilioWaiters[outboundID] else { return false }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            if case .terminated = waiter.yield(.stream(leg, done: done)) { done.resume() }
        }
        return true
    }
}
