import Analysis
import Bridge
import Dialogue
import Foundation
import Realtime
import TraceContext
import Tracing

/// How handing a call to a person went: over (the caller left this call, or nobody was reached
/// and the agent goes on), or a person's leg this call must bridge the caller to (B2BUA).
public enum TransferResult: Sendable {
    case finished(TransferOutcome)
    case bridged(any MediaStreamLeg)

    /// How it went: a bridged person answered.
    var outcome: TransferOutcome {
        switch self {
        case .finished(let outcome): outcome
        case .bridged: .answered
        }
    }
}

/// Hands a call to a person: a SIP REFER (bridging the person itself when the peer refuses it),
/// or Twilio's `<Dial>`; given to the session by whoever owns the call's signalling.
public typealias CallTransfer = @Sendable (_ target: String) async -> TransferResult

/// What the agent side does after a transfer.
enum AfterTransfer {
    /// The caller left this call (the person answered): the call is over.
    case over
    /// Nobody was reached: the engine has the caller back.
    case backToTheAgent
    /// Relay the caller and this person's leg until one of them hangs up.
    case bridge(any MediaStreamLeg)
    /// A warm transfer: brief this person (who answered `target`), and bridge them if they accept.
    case brief(any MediaStreamLeg, target: String, briefing: String)
}

/// The engine asked to transfer: the announcement plays out, the transfer runs (caller audio kept
/// from the engine meanwhile — its output is not being drained), and it is written down. Answered:
/// the call ends, the caller is with the person. Otherwise the engine has the caller back.
extension CallSession {
    func transferCall(reason: String) async -> AfterTransfer {
        await waitForPlaybackToEnd(within: .seconds(20))
        guard let transfer, let target = context.transferTarget else {
            await engine.transferEnded(.failed)
            return .backToTheAgent
        }
        await appendTranscript(speaker: .ai, text: "[Transfer to \(target): \(reason)]", item: nil, spoken: false)
        state.withLock { $0.engineHearsCaller = false }
        if let warm = warmTransfer {
            // Warm: we call the person ourselves, the caller on hold; they hear who is waiting
            // first — written (by the model, when one is set) while their phone rings.
            async let written = writtenBriefing(warm.settings, reason: reason)
            let dialled = await Self.traced(mode: "warm") { await warm.dial(target) }
            let briefing = await written
            if case .bridged(let person) = dialled {
                let text = briefing.trimmingCharacters(in: .whitespaces) + " " + WarmTransfer.keys(byVoice: warm.settings.transcribe != nil)
                await appendTranscript(speaker: .ai, text: "[Briefing for the person: \(text)]", item: nil, spoken: false)
                return .brief(person, target: target, briefing: text)
            }
            if case .finished(let outcome) = dialled { return await warmTransferEnded(target: target, outcome: outcome) }
        }
        let result = await Self.traced(mode: "blind") { await transfer(target) }
        let outcome = result.outcome
        logger.info("transfer", metadata: ["call": "\(callID)", "target": "\(target)", "outcome": "\(outcome.rawValue)"])
        do { try await store.setTransfer(callID: callID, target: target, outcome: outcome.rawValue) } catch {
            logger.warning("could not store the transfer", metadata: ["call": "\(callID)", "error": "\(error)"])
        }
        let bridged = if case .bridged = result { ", bridged by VoiceBridge" } else { "" }
        await appendTranscript(speaker: .ai, text: "[Transfer \(outcome.rawValue.replacingOccurrences(of: "_", with: " "))\(bridged)]", item: nil, spoken: false)
        if case .bridged(let person) = result { return .bridge(person) }
        if outcome.leftTheCall {
            finish(.transferred)
            return .over
        }
        state.withLock { $0.engineHearsCaller = true }
        await engine.transferEnded(outcome)
        return .backToTheAgent
    }

    /// Reaching the person, as a span of the call's trace when it is traced here: how, and how it
    /// went. Not whom: the target is a number or an address.
    static func traced(mode: String, _ reach: () async -> TransferResult) async -> TransferResult {
        await TraceParent.withSpan("transfer", kind: .client, attributes: ["voicebridge.transfer.mode": .string(mode)], reach) { result, span in
            span.attributes["voicebridge.transfer.outcome"] = result.outcome.rawValue
        }
    }

    /// A warm transfer's person accepted: written down as the bridge comes up.
    func transferAccepted(target: String) async {
        do { try await store.setTransfer(callID: callID, target: target, outcome: TransferOutcome.answered.rawValue) } catch {
            logger.warning("could not store the transfer", metadata: ["call": "\(callID)", "error": "\(error)"])
        }
        await appendTranscript(speaker: .ai, text: "[Transfer answered, warm: the person accepted]", item: nil, spoken: false)
    }

    /// A warm transfer that did not reach a person who took the call: stored, and the agent goes on.
    func warmTransferEnded(target: String, outcome: TransferOutcome) async -> AfterTransfer {
        logger.info("transfer", metadata: ["call": "\(callID)", "target": "\(target)", "outcome": "\(outcome.rawValue)", "mode": "warm"])
        do { try await store.setTransfer(callID: callID, target: target, outcome: outcome.rawValue) } catch {
            logger.warning("could not store the transfer", metadata: ["call": "\(callID)", "error": "\(error)"])
        }
        await appendTranscript(speaker: .ai, text: "[Transfer \(outcome.rawValue.replacingOccurrences(of: "_", with: " ")), warm]", item: nil, spoken: false)
        state.withLock { $0.engineHearsCaller = true }
        await engine.transferEnded(outcome)
        return .backToTheAgent
    }

    /// The briefing for a warm transfer's person: the model's summary of the call so far when one
    /// writes it, else the scripted one from the answers.
    func writtenBriefing(_ settings: WarmTransfer.Settings, reason: String) async -> String {
        let answers = (try? await store.answers(callID: callID)) ?? []
        if let write = settings.writeBriefing {
            let transcript = ((try? await store.transcript(callID: callID)) ?? []).map { AnalysisInput.Line($0.entry) }.filter { !$0.text.hasPrefix("[") }
            let input = AnalysisInput(purpose: context.purpose, transcript: transcript, answers: answers.map(AnalysisInput.Answer.init), taskCompleted: false)
            if let written = await write(input, reason) { return written }
        }
        return WarmTransfer.briefing(context: context, reason: reason, answers: answers)
    }
}
