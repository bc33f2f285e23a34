import Bridge
import Dialogue
import Foundation
import Pipeline
import Realtime
import Simulation
import TraceContext

extension CallManager {
    /// One attempt of an outbound call: dial, ring, talk, store the outcome, maybe queue a retry.
    func runAttempt(_ id: String) async {
        defer { finished(id) }
        guard let handle = live[id] else { return }
        let call: CallRecord
        do {
            // Listed after it was queued: never dialed.
            if let queued = try await store.call(id: id), try await store.doNotCall.contains(queued.calleeNumber) {
                try await transition(id, to: .cancelled, reason: "do_not_call")
                return
            }
            (call, _) = try await transition(id, to: .dialing, from: .queued)   // not if it was cancelled since the claim
        } catch {
            logger.warning("could not start a call", metadata: ["call": "\(id)", "error": "\(error)"])
            try? await store.releaseClaim(id: id, node: settings.nodeID)
            return
        }
        await traced(call, handle: handle, at: settings.clock.date) { await dial(call, handle: handle) }
    }

    /// Runs one attempt of `call` (`body`) under its span, when calls are traced: the requests
    /// made inside carry it (those through the egress client as client spans of their own), and it
    /// ends with the attempt's stored outcome.
    func traced(_ call: CallRecord, handle: LiveCall, at start: Date, _ body: () async -> Void) async {
        guard let tracer = settings.tracer else { return await body() }
        var call = call
        if call.traceParent == nil, call.direction == .outbound {
            // Stored without a trace (a campaign's call, or queued while tracing was off): its
            // "call queued" span now, at the time it was stored, for this and later attempts.
            let queued = CallSpan.Queued(on: tracer, under: nil, at: call.createdAt)
            if let made = queued.traceParent {
                call.traceParent = ((try? await store.keepTraceParent(made, forCall: call.outboundId)) ?? made).value
            }
            queued.end(callID: call.outboundId)
        }
        let span = CallSpan(tracer: tracer, call: call, engine: settings.engineMode, at: start)
        handle.trace.withLock { $0 = span }
        let clock = settings.clock
        await TraceParent.$recorder.withValue(TraceParent.Recorder(tracer: tracer, now: { clock.date })) {
            await TraceParent.$current.withValue(span.traceParent) { await body() }
        }
        span.end(at: settings.clock.date)
    }

    /// Dials `call`, which is now `dialing`, and runs it to its end.
    private func dial(_ call: CallRecord, handle: LiveCall) async {
        let id = call.outboundId
        // One context for the call: the engine's and the session's.
        let context = await context(for: call)
        let engine: any ConversationEngine
        do {
            engine = try engines(context)
        } catch {
            await fail(call, state: .failed, reason: "engine_unavailable: \(error)")
            return
        }
        if let carrier = settings.carrier {
            await runTwilioAttempt(call, carrier: carrier, engine: engine, context: context, handle: handle)
            return
        }
        if let callee = settings.inProcessCallee {
            await runInProcessAttempt(call, callee: callee, engine: engine, context: context, handle: handle)
            return
        }
        var headers: [(String, String)] = []
        if settings.simulatedCallee, let answers = call.simulatedAnswers { headers.append(SimulatedCallee.header(for: answers)) }
        let sipCall: SIPCall
        do {
            sipCall = try await userAgent.placeCall(from: call.callerNumber, displayName: call.callerDisplayName.isEmpty ? nil : call.callerDisplayName,
                                                    to: call.calleeNumber, gateway: settings.gateway, outboundCallID: id,
                                                    ringTimeout: settings.ringTimeout, extraHeaders: headers)
        } catch {
            await fail(call, state: .failed, reason: "sip_error: \(error)")
            return
        }
        handle.sipCall.withLock { $0 = sipCall }
        try? await store.setSIPCallID(callID: id, sipCallID: sipCall.callID)
        if handle.cancelRequested.load(ordering: .relaxed) { await sipCall.cancel() }

        for await event in sipCall.events {
            switch event {
            case .ringing:
                if (try? await store.call(id: id))?.state == .dialing { _ = try? await transition(id, to: .ringing) }
            case .answered:
                _ = try? await transition(id, to: .connected)
                await converse(call: call, sipCall: sipCall, engine: engine, context: context, handle: handle)
                return
            case .failed(let failure):
                let (state, reason) = Self.outcome(of: failure)
                await fail(call, state: state, reason: reason)
                return
            case .ended:
                await fail(call, state: .failed, reason: "ended before answer")
                return
            case .trying, .dtmf:
                break
            }
        }
    }

    /// An answered SIP call: its media leg, then the call on it (machine detection on outbound
    /// calls, a REFER or a bridged person for transfers).
    func converse(call: CallRecord, sipCall: SIPCall, engine: any ConversationEngine, context: ConversationContext, handle: LiveCall) async {
        guard let leg = try? SIPCallLeg(call: sipCall, scheduler: scheduler) else {
            await sipCall.hangUp()
            await fail(call, state: .failed, reason: "no media session")
            return
        }
        await converse(call: call, leg: leg, engine: engine, context: context, handle: handle,
                       machineDetection: call.direction == .outbound ? machineDetection(for: call) : nil,
                       transfer: sipTransfer(sipCall, caller: call.direction == .outbound ? call.callerNumber : call.calleeNumber),
                       warmTransfer: warmTransfer(caller: call.direction == .outbound ? call.callerNumber : call.calleeNumber))
    }

    /// A SIP call's warm transfer, when transfers are warm: we call the person (B2BUA) and brief them.
    func warmTransfer(caller: String) -> WarmTransfer? {
        guard let warm = settings.warmTransfer else { return nil }
        let gateway = settings.gateway
        return WarmTransfer(settings: warm) { target in
            let uri = target.hasPrefix("sip:") ? target : SIPURI(user: target, host: gateway.host, port: gateway.port).description
            return await self.callPerson(uri, from: caller)
        }
    }

    /// A SIP call's transfer: a blind REFER to the target — a SIP URI, or a number at the gateway.
    /// A peer that refuses REFER gets the person bridged by us instead (B2BUA): we call them.
    func sipTransfer(_ sipCall: SIPCall, caller: String) -> CallTransfer {
        let gateway = settings.gateway, clock = settings.clock
        return { target in
            let uri = target.hasPrefix("sip:") ? target : SIPURI(user: target, host: gateway.host, port: gateway.port).description
            switch await sipCall.transfer(to: uri, clock: clock) {
            case .answered: return .finished(.answered)
            case .failed(let code): return .finished(Self.transferOutcome(of: code))
            case .refused: return await self.callPerson(uri, from: caller)
            }
        }
    }

    static func transferOutcome(of code: Int) -> TransferOutcome {
        switch code {
        case 486, 600: .busy
        case 0, 408, 480, 487: .noAnswer
        default: .failed
        }
    }

    /// The B2BUA half of a transfer: an INVITE to the person; answered, their leg for the session to bridge.
    func callPerson(_ uri: String, from caller: String) async -> TransferResult {
        guard let target = SIPURI(uri) else { return .finished(.failed) }
        let call: SIPCall
        do {
            call = try await userAgent.placeCall(from: caller, to: target.user ?? "", gateway: SIPURI(host: target.host, port: target.port),
                                                 ringTimeout: .seconds(25))
        } catch {
            return .finished(.failed)
        }
        for await event in call.events {
            switch event {
            case .answered:
                guard let leg = try? SIPCallLeg(call: call, scheduler: scheduler) else {
                    await call.hangUp()
                    return .finished(.failed)
                }
                return .bridged(leg)
            case .failed(.busy): return .finished(.busy)
            case .failed(.noAnswer): return .finished(.noAnswer)
            case .failed, .ended: return .finished(.failed)
            case .trying, .ringing, .dtmf: continue
            }
        }
        return .finished(.failed)
    }

    /// What this SIP call does about an answering machine: the call's (or its template's) choice, else the configured one.
    func machineDetection(for call: CallRecord) -> MachineDetection? {
        let configured = settings.machineDetection
        let action = call.machineDetection.flatMap(VoiceBridgeConfig.Outbound.MachineDetection.Action.init(rawValue:)) ?? configured.action
        var detection: MachineDetection
        switch action {
        case .off: return nil
        case .hangup: detection = MachineDetection(action: .hangUp)
        case .leaveMessage: detection = MachineDetection(action: .leaveMessage(call.voicemailMessage ?? configured.message))
        }
        detection.holdGreeting = .milliseconds(configured.holdGreetingMs)
        detection.detector = AnsweringMachineDetector.Settings(greetingMaxMs: configured.speechThresholdMs)
        return detection
    }

    /// The call on its leg until it ends; stored as it ends. Returns how it ended.
    @discardableResult
    func converse(call: CallRecord, leg: any MediaStreamLeg, engine: any ConversationEngine, context: ConversationContext, handle: LiveCall,
                  machineDetection: MachineDetection? = nil, transfer: CallTransfer? = nil, warmTransfer: WarmTransfer? = nil) async -> CallSession.Ending {
        let session = CallSession(callID: call.outboundId, leg: leg, engine: engine, store: store, recorder: recorder(for: call),
                                  context: context, logger: logger, metrics: metrics, pricing: settings.pricing,
                                  localVoice: settings.localVoice, neuralVAD: settings.neuralVAD, holdBackgroundVoices: settings.holdBackgroundVoices,
                                  echoCancellation: settings.echoCancellation,
                                  noiseSuppression: (call.noiseSuppression ?? settings.noiseSuppressionByDefault) ? settings.noiseSuppression : nil,
                                  // A known phone menu answers: its recording would be taken for a machine's greeting.
                                  machineDetection: context.followsMenuPath ? nil : machineDetection,
                                  transfer: context.transferTarget == nil ? nil : transfer, warmTransfer: warmTransfer,
                                  overlapHoldMilliseconds: settings.overlapHoldMilliseconds, clock: settings.clock,
                                  turnMeasured: { [weak self] milliseconds in
                                      guard let self, let admission else { return }
                                      admission.turnMeasured(milliseconds: milliseconds, live: liveCalls.load(ordering: .relaxed))
                                  })
        handle.session.withLock { $0 = session }
        if handle.cancelRequested.load(ordering: .relaxed) { session.requestEnd(.cancelled) }
        pipelineStatistics.started(session.meters)
        let outcome = await session.run()
        pipelineStatistics.ended(session.meters)
        let (state, reason) = Self.storedEnd(of: outcome.ending)
        if outcome.ending == .voicemail, let reason {
            await fail(call, state: state, reason: reason)   // an answering machine may be tried again
        } else {
            await storeEnd(of: call.outboundId, in: state, reason: reason)
        }
        handle.trace.withLock { $0 }?.record(outcome.report, answered: settings.clock.date.addingTimeInterval(-session.connectedSeconds))
        return outcome.ending
    }

    /// The state and reason a connected call is stored with, by how it ended. A callee hanging up
    /// early still completes the call, with task_completed = false; the reason says who ended it
    /// (the event API announces it as outbound_ended).
    static func storedEnd(of ending: CallSession.Ending) -> (CallState, String?) {
        switch ending {
        case .agentFinished: (.completed, nil)
        case .maxDuration: (.completed, "max_call_duration")
        case .remoteHangup: (.completed, "remote_hangup")
        case .mediaTimeout: (.completed, "media_timeout")
        case .cancelled: (.cancelled, "cancelled by operator")
        // A realtime socket lost for good is its own, documented reason.
        case .engineFailure(let message): (.failed, message == OpenAIRealtimeEngine.disconnected ? message : "engine_failure: \(message)")
        case .voicemail: (.voicemail, "answering_machine")
        case .voicemailLeft: (.voicemailLeft, "message left")
        case .transferred: (.completed, "transferred")
        // Not retried: the callee (or their screener) turned the call away; the operator may.
        case .screenedOut: (.screenedOut, "call_screener")
        // The call was answered, by a machine that led nowhere: completed, its reason saying why.
        case .menuGaveUp(let state): (.completed, state.rawValue)
        }
    }

    /// Moves a call this node holds to `state`, stamped by the call's clock (`CallStore.transition`:
    /// refused when another node has taken the call over).
    @discardableResult
    func transition(_ id: String, to state: CallState, from expected: CallState? = nil, reason: String? = nil) async throws -> (CallRecord, CallEvent) {
        try await store.transition(id: id, to: state, from: expected, reason: reason, heldBy: settings.nodeID, now: settings.clock.date)
    }

    /// Stores how a call this node ran ended. A refusal is logged, not thrown: the call may
    /// have ended already, or been taken over while this node stalled (`notHolder`).
    func storeEnd(of id: String, in state: CallState, reason: String?) async {
        do { try await transition(id, to: state, reason: reason) } catch {
            logger.warning("could not store the call's end", metadata: ["call": "\(id)", "state": "\(state.rawValue)", "error": "\(error)"])
            return
        }
        live[id]?.trace.withLock { $0 }?.note(state: state, reason: reason)
        logger.info("call ended", metadata: ["call": "\(id)", "state": "\(state.rawValue)", "reason": "\(reason ?? "")"])
    }

    /// Records a failed attempt and, when the policy says so, queues the next one in the same
    /// transaction (so the call's webhook announces only its final outcome).
    func fail(_ call: CallRecord, state: CallState, reason: String) async {
        let now = settings.clock.date
        let retryAt = (try? await store.call(id: call.outboundId)).flatMap { Self.retryTime(for: $0, endingIn: state, policy: settings.retry, now: now) }
        do { try await store.endAttempt(id: call.outboundId, in: state, reason: reason, retryAt: retryAt, heldBy: settings.nodeID, now: now) } catch {
            logger.warning("could not store the attempt's end", metadata: ["call": "\(call.outboundId)", "error": "\(error)"])
            return
        }
        live[call.outboundId]?.trace.withLock { $0 }?.note(state: state, reason: reason)
        logger.info("call attempt ended", metadata: ["call": "\(call.outboundId)", "state": "\(state.rawValue)", "reason": "\(reason)",
                                                     "retry": "\(retryAt.map { "\($0)" } ?? "no")"])
    }

    /// When the retry `policy` tries `call` again after an attempt ending in `state` at `now`; nil: it does not.
    static func retryTime(for call: CallRecord, endingIn state: CallState, policy: VoiceBridgeConfig.Outbound.Retry, now: Date) -> Date? {
        // An inbound call is the caller's: queued again it would be dialled as an outbound call to
        // them (a node lost mid-call did so, under `retry_on: [failed]`).
        guard policy.enabled, call.direction == .outbound else { return nil }
        let key: VoiceBridgeConfig.Outbound.RetryReason? = switch state {
        case .busy: .busy
        case .noAnswer, .voicemail: .noAnswer   // a machine is retried like no answer: the person was not reached
        case .rejected: .rejected
        case .failed: .failed
        default: nil
        }
        // `retry_on_no_answer: false` turns automatic retries of this call off whatever the outcome:
        // the operator asked not to be called back by the system (seed 000 names only no-answer,
        // but a busy line retried five minutes later surprised its users just the same).
        let retried = call.retryOn.map { $0.split(separator: ",").compactMap { VoiceBridgeConfig.Outbound.RetryReason(rawValue: String($0)) } }
            ?? policy.retryOn
        guard let key, call.retryOnNoAnswer, retried.contains(key), call.attemptCount <= call.maxRetries else { return nil }
        return now.addingTimeInterval(TimeInterval(call.retryInterval))
    }

    static func outcome(of failure: SIPCallFailure) -> (CallState, String) {
        switch failure {
        case .busy: (.busy, "busy")
        case .rejected: (.rejected, "rejected")
        case .noAnswer: (.noAnswer, "no_answer")
        case .cancelled: (.cancelled, "cancelled by operator")
        default: (.failed, failure.description)
        }
    }
}

extension CallRecord {
    /// `metadata.simulated_answers`, if the request carried it.
    var simulatedAnswers: [String]? {
        OutboundCallRequest(callerNumber: "", calleeNumber: "", purpose: "", questions: [], metadata: metadata).simulatedAnswers
    }
}
