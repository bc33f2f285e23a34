import Bridge
import Foundation
import Pipeline
import Realtime

/// The caller's hold and the person's decision in a warm transfer (see `WarmTransfer`).
extension CallSession {
    /// Plays the hold audio to the caller until cancelled (the leg paces it; a `clear` drops what
    /// is queued). A leg that takes a whole period in well under its length is not pacing any
    /// more (the caller hung up): the hold stops rather than spin.
    func playHold(_ audio: [UInt8]) async {
        let period = Duration.milliseconds(audio.count / 8)
        while !Task.isCancelled, !audio.isEmpty {
            let started = clock.now
            for start in stride(from: 0, to: audio.count, by: 160) where !Task.isCancelled {
                await leg.send(.media(Array(audio[start..<min(start + 160, audio.count)])))
            }
            if started.duration(to: clock.now) < period / 3 { return }
        }
    }

    /// Says `text` to the person (the local voice, paced by their leg).
    func brief(_ person: any MediaStreamLeg, _ text: String) async {
        guard let voice = localVoice, let frames = try? await voice.frames(saying: text) else { return }
        for frame in frames where !Task.isCancelled {
            await person.send(.media(G711.encode(frame.samples, law: .muLaw)))
        }
    }

    /// The person's decision, read from their leg's events (which must be running): true on key 1
    /// or a spoken yes; false on key 2, a spoken no, a hang-up, or nothing within the limit (their
    /// line is then hung up). The caller holds meanwhile, the person hears the briefing.
    func personAccepts(_ person: any MediaStreamLeg, events: inout AsyncStream<MediaStreamEvent>.Iterator,
                       briefing: String, settings: WarmTransfer.Settings) async -> Bool {
        let accepted = await withTaskGroup(of: Void.self) { group -> Bool in
            group.addTask { await self.playHold(settings.holdAudio) }
            group.addTask { await self.brief(person, briefing) }
            group.addTask {
                try? await self.clock.sleep(for: settings.acceptWithin)
                if !Task.isCancelled { await person.hangUp() }   // no decision: their events end
            }
            var spoken = SpokenDecision()
            var accepted = false
            decision: while let event = await events.next() {
                guard state.withLock({ $0.closingReason }) == nil else { break }   // the operator ended the call
                switch event {
                case .dtmf(_, "1"): accepted = true; break decision
                case .dtmf(_, "2"), .stop: break decision
                case .media(let media):
                    let utterance = settings.transcribe == nil ? nil : spoken.hear(media.payload)
                    person.mediaEventConsumed()
                    guard let utterance, let words = await settings.transcribe?(utterance) else { continue }
                    await appendTranscript(speaker: .ai, text: "[The person said: \(words)]", item: nil, spoken: false)
                    if let yes = SpokenDecision.decision(in: words) {
                        accepted = yes
                        break decision
                    }
                default: continue
                }
            }
            group.cancelAll()
            return accepted
        }
        await leg.send(.clear)   // the hold audio still queued
        // And the briefing's rest: the person has decided. Left queued, it stood between the caller
        // and the person for the whole bridge (their leg paces the caller's words behind it): the
        // round trip through the bridge was 420–600 ms instead of 120–220 when they pressed 1 early.
        await person.send(.clear)
        return accepted
    }
}
