import Bridge
import Dialogue
import Foundation
import Pipeline
import Realtime
import Simulation

/// Outbound calls to the simulated callee inside the process (`Settings.inProcessCallee`): the
/// same attempt as over SIP — ringing, answered or busy, the session, the stored end — with the
/// dial and the media replaced by legs joined in memory. What calls in virtual time run on.
extension CallManager {
    func runInProcessAttempt(_ call: CallRecord, callee: SimulatedCallee, engine: any ConversationEngine, context: ConversationContext,
                             handle: LiveCall) async {
        let id = call.outboundId
        let answers = call.simulatedAnswers ?? []
        _ = try? await transition(id, to: .ringing)
        switch callee.pickup(for: answers) {
        case .busy:
            await fail(call, state: .busy, reason: "busy")
            return
        case .reject:
            await fail(call, state: .rejected, reason: "rejected")
            return
        case .never:
            try? await settings.clock.sleep(for: settings.ringTimeout)
            await fail(call, state: .noAnswer, reason: "no_answer")
            return
        case .answer(let ringing):
            try? await settings.clock.sleep(for: ringing)
        }
        if handle.cancelRequested.load(ordering: .relaxed) {
            await fail(call, state: .cancelled, reason: "cancelled by operator")
            return
        }
        _ = try? await transition(id, to: .connected)
        let parameters = ["call_id": id, "from": call.callerNumber, "to": call.calleeNumber, "direction": "outbound", "outbound_call_id": id]
        let (agent, person) = MemoryLeg.pair(scheduler: scheduler, clock: settings.clock,
                                             caller: MediaStreamStart(streamSid: "MZ-" + id, callSid: id, customParameters: parameters),
                                             callee: MediaStreamStart(streamSid: "MZ-callee-" + id, callSid: id),
                                             // Seeded by the script: a persona hears the same noise every run.
                                             impairment: settings.inProcessLine?.line(seed: Hiss.seed(answers.joined(separator: "\n"))))
        await withDiscardingTaskGroup { group in
            group.addTask { await callee.converse(on: person, answers: answers) { person.press($0) } }
            await converse(call: call, leg: agent, engine: engine, context: context, handle: handle,
                           machineDetection: machineDetection(for: call))
            await person.hangUp()
        }
    }
}
