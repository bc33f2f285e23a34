import Bridge
import Foundation

/// A warm transfer on a call through Twilio: Twilio calls the person (REST create) with TwiML that
/// streams their side back here, so the person's leg is a media stream like the caller's, and the
/// session holds, briefs, hears the decision and bridges exactly as over SIP (B2BUA: both legs'
/// audio through VoiceBridge). Chosen over `<Dial>` with a whisper URL because a declined or
/// unanswered transfer then leaves the caller's stream — and the agent — where they were.
extension CallManager {
    /// The id under which the person's call reports: the caller's call id with this suffix.
    public static let personLegSuffix = ".person"

    func twilioWarmTransfer(for call: CallRecord, carrier: TwilioCarrier) -> WarmTransfer? {
        guard let warm = settings.warmTransfer else { return nil }
        let caller = call.direction == .outbound ? call.callerNumber : call.calleeNumber
        return WarmTransfer(settings: warm) { target in
            await self.callPersonThroughTwilio(target, for: call.outboundId, carrier: carrier, from: caller)
        }
    }

    /// Places the person's call and waits for it: answered, their stream (`HandedOverLeg`);
    /// otherwise how it went. Nothing answers within the ring time: Twilio's call is cancelled.
    func callPersonThroughTwilio(_ target: String, for callID: String, carrier: TwilioCarrier, from caller: String) async -> TransferResult {
        let key = callID + Self.personLegSuffix
        let (events, input) = AsyncStream.makeStream(of: TwilioCallEvent.self, bufferingPolicy: .bufferingNewest(32))
        twilioWaiters[key] = input
        let sid: String
        do {
            sid = try await carrier.calls.create(.init(
                to: target, from: carrier.fromNumber ?? caller,
                twiml: TwiML.connectStream(publicBase: carrier.publicURL, parameters: [("outbound_id", key)]),
                statusCallback: carrier.statusCallbackURL(for: key), timeoutSeconds: 25, machineDetectionCallback: nil))
        } catch {
            twilioWaiters[key] = nil
            logger.warning("Twilio would not call the person", metadata: ["call": "\(callID)", "error": "\(error)"])
            return .finished(.failed)
        }
        let result = await withTaskGroup(of: Void.self) { group -> TransferResult in
            group.addTask { [clock = settings.clock] in
                try? await clock.sleep(for: .seconds(25 + 30))
                if !Task.isCancelled { input.yield(.timedOut) }
            }
            defer { group.cancelAll() }
            var lastSequence = -1
            for await event in events {
                switch event {
                case .status(let status, let sequence, let callSid):
                    // Only this person's call: a late callback of an earlier one (under the same id) is not about it.
                    guard callSid == sid, sequence > lastSequence else { continue }
                    lastSequence = sequence
                    switch status {
                    case "busy": return .finished(.busy)
                    case "no-answer", "canceled": return .finished(.noAnswer)
                    case "failed", "completed": return .finished(.failed)
                    default: continue
                    }
                case .stream(let leg, let done):
                    return .bridged(HandedOverLeg(leg, done: done))
                case .timedOut:
                    await cancelTwilioCall(sid, carrier: carrier)
                    return .finished(.noAnswer)
                }
            }
            return .finished(.failed)
        }
        await closeTwilioWaiter(key, input, events)
        return result
    }
}
