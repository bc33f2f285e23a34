import Bridge
import Foundation
import Pipeline
import Realtime

/// A warm transfer (`transfer.mode: warm`): VoiceBridge calls the person itself while the caller
/// hears a hold tone, tells the person who is waiting and why (the call so far), and bridges the
/// caller only when the person accepts — key 1; key 2, hanging up or saying nothing within the
/// limit declines, and the agent has the caller back.
public struct WarmTransfer: Sendable {
    /// Calls the person; answered, their leg (not yet running).
    public var dial: @Sendable (_ target: String) async -> TransferResult
    /// How long the person has to decide once they answered.
    public var acceptWithin: Duration

    public init(acceptWithin: Duration = .seconds(20), dial: @escaping @Sendable (_ target: String) async -> TransferResult) {
        self.dial = dial
        self.acceptWithin = acceptWithin
    }

    /// What the person hears: who is waiting, why, and the answers so far; then the keys.
    public static func briefing(context: ConversationContext, reason: String, answers: [TaskTracker.Answer]) -> String {
        let settled = answers.filter { $0.status == .answered }.map { "\($0.question) \($0.answerSummary ?? $0.answerText ?? "")" }
        return "Hello, this is the AI assistant of \(context.displayName). A caller is waiting on the line about \(context.purpose). "
            + "They asked for a person: \(reason). "
            + (settled.isEmpty ? "" : "So far: " + settled.joined(separator: "; ") + ". ")
            + "Press 1 to take the call, or 2 to decline."
    }

    /// The hold tone the caller hears: 0.4 s of 425 Hz, then 2.6 s of silence, as μ-law.
    static let holdPeriod: [UInt8] = {
        let tone = (0..<3200).map { i in Int16(2400 * sin(2 * Double.pi * 425 * Double(i) / 8000)) }
        return G711.encode(tone + [Int16](repeating: 0, count: 20_800), law: .muLaw)
    }()
}

extension CallSession {
    /// Plays the hold tone to the caller until cancelled (the leg paces it; a `clear` drops what is
    /// queued). A leg that takes a 3 s period in well under a second is not pacing any more (the
    /// caller hung up): the tone stops rather than spin.
    func playHold() async {
        while !Task.isCancelled {
            let started = ContinuousClock.now
            for start in stride(from: 0, to: WarmTransfer.holdPeriod.count, by: 160) where !Task.isCancelled {
                await leg.send(.media(Array(WarmTransfer.holdPeriod[start..<min(start + 160, WarmTransfer.holdPeriod.count)])))
            }
            if started.duration(to: .now) < .seconds(1) { return }
        }
    }

    /// Says `text` to the person (the local voice, paced by their leg).
    func brief(_ person: any MediaStreamLeg, _ text: String) async {
        guard let voice = localVoice, let frames = try? await voice.frames(saying: text) else { return }
        for frame in frames where !Task.isCancelled {
            await person.send(.media(G711.encode(frame.samples, law: .muLaw)))
        }
    }

    /// The person's decision, read from their leg's events (which must be running): true on key 1;
    /// false on key 2, a hang-up, or nothing within `within` (their line is then hung up). The
    /// caller hears the hold tone meanwhile, the person the briefing.
    func personAccepts(_ person: any MediaStreamLeg, events: inout AsyncStream<MediaStreamEvent>.Iterator,
                       briefing: String, within: Duration) async -> Bool {
        let accepted = await withTaskGroup(of: Void.self) { group -> Bool in
            group.addTask { await self.playHold() }
            group.addTask { await self.brief(person, briefing) }
            group.addTask {
                try? await Task.sleep(for: within)
                if !Task.isCancelled { await person.hangUp() }   // no decision: their events end
            }
            var accepted = false
            decision: while let event = await events.next() {
                switch event {
                case .dtmf(_, "1"): accepted = true; break decision
                case .dtmf(_, "2"), .stop: break decision
                case .media: person.mediaEventConsumed()
                default: continue
                }
            }
            group.cancelAll()
            return accepted
        }
        await leg.send(.clear)   // the hold tone still queued
        return accepted
    }
}
