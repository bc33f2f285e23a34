import Bridge
import Realtime

extension StreamBotEngine {
    /// One text message from the bot. Anything not understood is counted and skipped: a bot's
    /// mistake never ends the call.
    func receive(_ text: String) async {
        let decoded: TwilioMediaStreamCodec.Decoded<MediaStreamCommand>
        do {
            decoded = try TwilioMediaStreamCodec.decodeCommand(text)
        } catch {
            state.withLock { $0.malformed += 1 }
            logger.warning("malformed message from the bot", metadata: ["url": "\(url)", "error": "\(error)"])
            return
        }
        switch decoded {
        case .message(.media(let bytes), _):
            guard !bytes.isEmpty else { return }
            let item = state.withLock { s -> String in
                if let item = s.currentItem { return item }
                s.items += 1
                let item = "bot-\(s.items)"
                s.currentItem = item
                s.unplayed.append(item)
                return item
            }
            await events.send(.audioBytes(item: item, bytes: bytes))
        case .message(.mark(let name), _):
            let closed = state.withLock { s in
                defer { s.currentItem = nil }
                return s.currentItem
            }
            if let closed { await events.send(.audioDone(item: closed)) }
            let echoes = state.withLock { s -> [String] in
                s.pendingMarks.append((name, s.unplayed.last))
                return Self.releasedMarks(&s)
            }
            for name in echoes { outbox.sendUrgent(.mark(name)) }
        case .message(.clear, _):
            // As Twilio does: the queued audio is dropped and every pending mark comes back now.
            let (items, echoes) = state.withLock { s in
                defer { s.currentItem = nil; s.unplayed = []; s.pendingMarks = [] }
                return (s.unplayed, s.pendingMarks.map(\.name))
            }
            events.sendUrgent(.clearAudio(items: items))
            for name in echoes { outbox.sendUrgent(.mark(name)) }
        case .unknownEvent(StreamBotExtension.event):
            do {
                guard let message = try StreamBotExtension.parse(text) else {
                    state.withLock { $0.unknown += 1 }
                    return
                }
                await handle(message)
            } catch {
                state.withLock { $0.malformed += 1 }
                logger.warning("malformed voicebridge message from the bot", metadata: ["url": "\(url)", "error": "\(error)"])
            }
        case .acknowledged:
            break
        case .unknownEvent(let name):
            state.withLock { $0.unknown += 1 }
            logger.debug("ignored an unknown event from the bot", metadata: ["event": "\(name)"])
        }
    }

    private func handle(_ message: StreamBotExtension) async {
        switch message {
        case .transcript(let speaker, let text):
            await events.send(.transcript(speaker: speaker, text: text, item: nil))
        case .answer(let id, let status, let answer, let summary, let confidence):
            let tracker = state.withLock { s in
                s.tracker.update(questionID: id, status: status, answerText: answer, summary: summary, confidence: confidence)
                if let index = s.tracker.answers.firstIndex(where: { $0.questionID == id }), s.tracker.answers[index].timesAsked == 0 {
                    s.tracker.asked(index)
                }
                return s.tracker
            }
            await events.send(.taskState(tracker))
        case .hangUp(let reason):
            await hangUp(reason: reason)
        }
    }

    /// The bot ends the call: once the audio it sent has played.
    func hangUp(reason: String) async {
        let closed = state.withLock { s in
            defer { s.currentItem = nil; s.hangUp = reason }
            return s.currentItem
        }
        if let closed { await events.send(.audioDone(item: closed)) }
        await events.send(.endCall(reason: reason, afterItem: closed))
    }

    /// The bot's marks whose audio has all been played, in the order it sent them.
    static func releasedMarks(_ s: inout State) -> [String] {
        var echoes: [String] = []
        while let first = s.pendingMarks.first, first.after.map({ !s.unplayed.contains($0) }) ?? true {
            echoes.append(first.name)
            s.pendingMarks.removeFirst()
        }
        return echoes
    }
}
