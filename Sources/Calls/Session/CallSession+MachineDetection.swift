import Foundation
import Pipeline
import Realtime

/// What a call does when an answering machine picks up (`machine_detection`), and how long the
/// agent's greeting waits for the verdict.
public struct MachineDetection: Sendable, Equatable {
    public enum Action: Sendable, Equatable {
        /// Hang up: the call ends as `voicemail`.
        case hangUp
        /// After the machine's beep (or the end of its greeting), say this and hang up: `voicemail_left`.
        case leaveMessage(String)
    }

    public var action: Action
    public var detector = AnsweringMachineDetector.Settings()
    /// The longest the agent's greeting waits for a verdict.
    public var holdGreeting: Duration = .milliseconds(3500)
    /// `leaveMessage`: the longest the agent waits for the machine's greeting to end.
    public var greetingWaitLimit: Duration = .seconds(30)

    public init(action: Action) { self.action = action }
}

/// Answering-machine detection on a call: the caller side feeds the detector every frame (and the
/// recognizer's words); the agent side holds its greeting for the verdict; a verdict is stored as
/// `answered_by` with its time, and a machine's is acted on.
extension CallSession {
    /// One caller frame (from `noteTurn`, wherever the frame was handled): speech, and a beep.
    func observeForMachine(_ frame: InboundFrame) {
        guard machineDetection != nil else { return }
        let beep = frame.tones.contains { if case .beep = $0 { true } else { false } }
        let (decision, greetingOver) = state.withLock { s in
            s.lastCallerFrameAt = clock.now
            let decision = s.detector?.observe(speech: frame.voice.isSpeech, beep: beep)
            return (decision, s.detector?.greetingIsOver == true)
        }
        if let decision {
            verdictInput.yield(decision)
        }
        if decision != nil || greetingOver { agentSideAlarm.ring() }
    }

    /// The callee's words, as the engine's recognizer wrote them.
    func observeForMachine(words: String) {
        guard machineDetection != nil, let decision = state.withLock({ $0.detector?.heard(words: words) }) else { return }
        verdictInput.yield(decision)
        agentSideAlarm.ring()
    }

    /// For the life of a call with detection: each verdict is stored; a machine's is acted on —
    /// a hang-up at once, a message by the agent side (it owns the outgoing audio).
    func actOnMachineVerdicts() async {
        for await decision in verdicts {
            do { try await store.setAnsweredBy(callID: callID, decision.verdict.rawValue, afterMs: decision.atMs) } catch {
                logger.warning("could not store who answered", metadata: ["call": "\(callID)", "error": "\(error)"])
            }
            logger.info("answered by", metadata: ["call": "\(callID)", "verdict": "\(decision.verdict.rawValue)", "ms": "\(decision.atMs)", "why": "\(decision.reason)"])
            guard decision.verdict == .machine, let detection = machineDetection else { continue }
            switch detection.action {
            case .hangUp: finish(.voicemail)
            case .leaveMessage: state.withLock { $0.machineMessagePending = true }
            }
        }
    }

    /// What the agent side does first, once the verdict is in (or the hold is over).
    enum Opening {
        case greet
        case leaveMessage
        /// The call is ending (a machine to hang up on, or the call was ended meanwhile).
        case stop
    }

    /// Before the agent's first word: waits for a verdict, at most `holdGreeting`.
    func holdGreetingForVerdict() async -> Opening {
        guard let detection = machineDetection else { return .greet }
        await waitUntil(clock.now.advanced(by: detection.holdGreeting)) { state.withLock { $0.detector?.decision != nil } }
        guard !Task.isCancelled else { return .stop }
        switch (state.withLock { $0.detector?.decision?.verdict }, detection.action) {
        case (.machine?, .leaveMessage): return .leaveMessage
        case (.machine?, .hangUp): return .stop   // actOnMachineVerdicts ends the call
        case (.human?, _), (.unknown?, _), (nil, _): return .greet   // nil: the hold is over
        }
    }

    /// Whether a machine was recognized after the greeting had gone out and a message is waiting to be left.
    var machineMessagePending: Bool { state.withLock { $0.machineMessagePending } }

    var engineHearsCaller: Bool { state.withLock { $0.engineHearsCaller } }

    /// `leaveMessage`: until the machine's beep or the end of its greeting (bounded); then the
    /// message's words. A machine that stops sending audio (silence suppression) has ended too.
    func waitForMachineGreetingToEnd() async -> String? {
        guard let detection = machineDetection, case .leaveMessage(let text) = detection.action else { return nil }
        let deadline = clock.now.advanced(by: detection.greetingWaitLimit)
        let quiet = Duration.milliseconds(detection.detector.endOfGreetingSilenceMs)
        // Over when the detector says so (it rings), or once the line has been quiet long enough:
        // looked at again `quiet` after the last frame (a frame since moves that time on).
        await waitUntil(deadline, alsoAt: { state.withLock { $0.lastCallerFrameAt?.advanced(by: quiet) } }) {
            state.withLock { s in s.detector?.greetingIsOver == true || s.lastCallerFrameAt.map { $0.duration(to: clock.now) >= quiet } == true }
        }
        return context.filled(text)
    }
}
