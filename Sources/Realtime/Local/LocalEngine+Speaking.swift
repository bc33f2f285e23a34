import Dialogue
import Foundation
import Pipeline
import Tools

/// What the local engine says: each dialogue step spoken by its voice in 200 ms chunks, the
/// wait for the caller's reply started as it plays, and a flow's tool step run in between.
extension LocalEngine {
    func say(_ step: ScriptedDialogue.Step) async {
        guard !state.withLock({ $0.hungUp }) else { return }   // nobody is there to hear it
        let (text, closing, transfer): (String, Bool, String?) = switch step {
        case .ask(let text, _): (text, false, nil)
        case .close(let text): (text, true, nil)
        case .transfer(let text, let reason): (text, true, reason)   // no reply is awaited: the session transfers
        case .runTool(let text): (text, false, nil)
        case .listen(let text): (text, false, nil)
        case .press: ("", false, nil)
        }
        if case .press(let keys) = step {
            await events.emit(.sendKeys(keys))
            listenSilently()
            return
        }
        if case .listen = step, text.isEmpty {
            listenSilently()
            return
        }
        if case .runTool = step {
            if !text.isEmpty { await voice(text, awaitingReply: false) }
            await runFlowTool()
            return
        }
        let item = await voice(text, awaitingReply: !closing)
        if let transfer {
            await events.emit(.transfer(reason: transfer, afterItem: item))
        } else if closing {
            let reason = state.withLock { s in s.ended = true; return s.dialogue.endReason }
            await events.emit(.endCall(reason: reason, afterItem: item))
        }
    }

    /// Waits for the callee without a word (behind a call screener): the reply timeout starts now.
    func listenSilently() {
        state.withLock { s in
            s.awaitingReply = true
            s.waitedMilliseconds = 0
            s.replyDeadlineMilliseconds = replyTimeoutMilliseconds
        }
    }

    /// The flow's tool step: the call's tool, run while (past a moment) the caller hears its waiting
    /// line; recorded like a model's tool call; then the flow goes on where its answer leads.
    func runFlowTool() async {
        let call = state.withLock { $0.dialogue.pendingTool() }
        let outcome: ToolRunner.Outcome
        if let call, let tools {
            outcome = await tools.call(call.tool, arguments: call.arguments) {
                await self.voice(call.tool.speakWhileWaiting ?? ToolDefinition.defaultWaitingLine, awaitingReply: false)
            }
        } else {
            outcome = ToolRunner.unknownTool(call?.tool.name ?? "tool", arguments: call?.arguments ?? "{}")
        }
        await events.emit(.toolCalled(outcome.record))
        let (step, tracker) = state.withLock { ($0.dialogue.toolFinished(outcome), $0.dialogue.tracker) }
        await events.emit(.taskState(tracker))
        await say(step)
    }

    /// Says `text` as one agent item; `awaitingReply`: the wait for the caller's reply starts
    /// counting as it is spoken. Returns the item.
    @discardableResult
    func voice(_ text: String, awaitingReply: Bool) async -> String {
        let item = state.withLock { s -> String in s.itemCount += 1; return "local-\(s.itemCount)" }
        await events.emit(.transcript(speaker: .ai, text: text, item: item))
        do {
            let started = VirtualTimeExecutor.now
            var spoken = 0
            var playingSince: ContinuousClock.Instant?
            // The voice of the language being spoken; Korean numbers are written as said for espeak-ng.
            let language = state.withLock { $0.dialogue.language }
            let tts = otherVoices[language] ?? tts
            let korean = DialoguePhrases.isKorean(language)
            for (n, sentence) in Self.sentences(text).flatMap(tts.pieces).enumerated() where !state.withLock({ $0.hungUp }) {
                let urgency = Self.urgency(ofPieceAfter: spoken, playingSince: playingSince, now: VirtualTimeExecutor.now)
                let samples = try await BlockingWorkPool.$urgency.withValue(urgency) {
                    try await tts.synthesize(korean ? KoreanSpeech.speakable(sentence) : sentence)
                }
                meter.add { $0.ttsCharacters += sentence.count }
                if n == 0 { await firstByte("tts", since: started) }
                spoken += samples.count
                if awaitingReply {
                    state.withLock { s in   // the wait for a reply starts counting now, plus what is still to play
                        s.awaitingReply = true
                        s.waitedMilliseconds = 0
                        s.replyDeadlineMilliseconds = spoken * 1000 / EspeakSynthesizer.sampleRate + replyTimeoutMilliseconds
                    }
                }
                if playingSince == nil { playingSince = VirtualTimeExecutor.now }
                // 200 ms chunks: small enough for the bounded queue to pace a fast synthesizer.
                for start in stride(from: 0, to: samples.count, by: EspeakSynthesizer.sampleRate / 5) {
                    await events.emit(.audio(item: item, samples: Array(samples[start..<min(start + EspeakSynthesizer.sampleRate / 5, samples.count)])))
                }
            }
        } catch is CancellationError {
            // The call ended mid-sentence: nothing went wrong.
        } catch {
            await events.emit(.error(message: "\(error)", fatal: false))
        }
        await events.emit(.audioDone(item: item))
        return item
    }

    /// How soon a reply's next piece is wanted: its first at once (the caller waits for it), any
    /// other once the audio made before it has played, less `makingMargin` to make it in. Until
    /// then other calls' callers, waiting now, go first on the inference lanes. (Whether the
    /// hang-up made the whole call's work wait is the lanes' own rule: nothing is said after it.)
    static func urgency(ofPieceAfter samples: Int, playingSince start: ContinuousClock.Instant?, now: ContinuousClock.Instant) -> BlockingWorkPool.Urgency {
        guard let start, samples > 0, BlockingWorkPool.urgency == .now else { return BlockingWorkPool.urgency }
        let made = Duration.milliseconds(samples * 1000 / EspeakSynthesizer.sampleRate)
        return .within(made - start.duration(to: now) - makingMargin)
    }

    /// What a piece of a reply is given to be made in before the audio ahead of it runs out: a
    /// clause takes Piper ~50–250 ms here, more on a loaded machine.
    static let makingMargin = Duration.milliseconds(400)

    /// A reply cut after each sentence's end mark (". ", "? ", "! "), marks kept.
    static func sentences(_ text: String) -> [String] {
        var sentences: [String] = [], current = ""
        for character in text {
            current.append(character)
            if ".?!".contains(character) {
                let trimmed = current.trimmingCharacters(in: .whitespaces)
                if !trimmed.isEmpty { sentences.append(trimmed) }
                current = ""
            }
        }
        let rest = current.trimmingCharacters(in: .whitespaces)
        if !rest.isEmpty { sentences.append(rest) }
        return sentences
    }
}
