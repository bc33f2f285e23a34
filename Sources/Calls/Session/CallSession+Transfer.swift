import Foundation
import Realtime

/// Hands a call to a person: a SIP REFER, or Twilio's `<Dial>`; given to the session by whoever
/// owns the call's signalling. Returns how it went.
public typealias CallTransfer = @Sendable (_ target: String) async -> TransferOutcome

/// The engine asked to transfer: the announcement plays out, the transfer runs (caller audio kept
/// from the engine meanwhile — its output is not being drained), and it is written down. Answered:
/// the call ends, the caller is with the person. Otherwise the engine has the caller back.
extension CallSession {
    /// True when the call is over (transferred).
    func transferCall(reason: String) async -> Bool {
        let deadline = ContinuousClock.now.advanced(by: .seconds(20))
        while playback.snapshot.isPlaying, ContinuousClock.now < deadline, !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(20))
        }
        guard let transfer, let target = context.transferTarget else {
            await engine.transferEnded(.failed)
            return false
        }
        appendTranscript(speaker: .ai, text: "[Transfer to \(target): \(reason)]", item: nil, spoken: false)
        state.withLock { $0.engineHearsCaller = false }
        let outcome = await transfer(target)
        logger.info("transfer", metadata: ["call": "\(callID)", "target": "\(target)", "outcome": "\(outcome.rawValue)"])
        do { try store.setTransfer(callID: callID, target: target, outcome: outcome.rawValue) } catch {
            logger.warning("could not store the transfer", metadata: ["call": "\(callID)", "error": "\(error)"])
        }
        appendTranscript(speaker: .ai, text: "[Transfer \(outcome.rawValue.replacingOccurrences(of: "_", with: " "))]", item: nil, spoken: false)
        if outcome.leftTheCall {
            finish(.transferred)
            return true
        }
        state.withLock { $0.engineHearsCaller = true }
        await engine.transferEnded(outcome)
        return false
    }
}
