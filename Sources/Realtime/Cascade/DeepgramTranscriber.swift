import Foundation
import HummingbirdWSClient
import Logging
import NIOCore
import Pipeline
import Synchronization

/// Deepgram streaming speech-to-text over WebSocket (PROTOCOLS.md §4.3): raw μ-law in binary
/// frames, `is_final` segments joined into an utterance that `speech_final` (or `UtteranceEnd`)
/// completes, `SpeechStarted` as an early barge-in signal, KeepAlive while no audio flows, and
/// CloseStream at the end.
final class DeepgramTranscriber: Sendable {
    enum Event: Sendable, Equatable {
        case speechStarted
        /// The words so far, before the turn is over: `fixed` when the last segment is final.
        case heardSoFar(String, fixed: Bool)
        case utterance(String)
    }

    let url: String
    let apiKey: String
    let logger: Logger
    private let state = Mutex(State())
    private let onEvent: @Sendable (Event) async -> Void

    private struct State {
        var writer: WebSocketOutboundWriter?
        var segments: [String] = []
        var lastAudio = TaskClock().now
    }

    /// `language`: the call's ("en", "ko"), which Deepgram's models take as `language`.
    init(baseURL: String, apiKey: String, model: String, language: String = "en", logger: Logger, onEvent: @escaping @Sendable (Event) async -> Void) {
        let base = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        let code = language.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-"))) ?? "en"
        url = "\(base)/listen?model=\(model)&language=\(code)&encoding=mulaw&sample_rate=8000&channels=1&interim_results=true&endpointing=300"
            + "&utterance_end_ms=1000&vad_events=true&smart_format=true&punctuate=true"
        self.apiKey = apiKey
        self.logger = logger
        self.onEvent = onEvent
    }

    /// Connected until the stream closes (after `finish()`, or from Deepgram's side).
    func run() async throws {
        var configuration = WebSocketClientConfiguration()
        configuration.additionalHeaders = [.authorization: "Token \(apiKey)"]
        configuration.addTraceParent()
        try await WebSocketClient.connect(url: url, configuration: configuration, logger: logger) { inbound, outbound, _ in
            self.state.withLock { $0.writer = outbound }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    // Deepgram closes an idle stream after 10 s (NET-0001).
                    let clock = TaskClock()
                    while !Task.isCancelled {
                        try await clock.sleep(for: .seconds(4))
                        if self.state.withLock({ $0.lastAudio.duration(to: clock.now) > .seconds(3) }) {
                            try await outbound.write(.text(#"{"type":"KeepAlive"}"#))
                        }
                    }
                }
                for try await message in inbound.messages(maxSize: 1 << 20) {
                    guard case .text(let text) = message else { continue }
                    await self.handle(text)
                }
                group.cancelAll()
            }
        }
        state.withLock { $0.writer = nil }
    }

    func send(muLaw: [UInt8]) async {
        guard let writer = state.withLock({ s -> WebSocketOutboundWriter? in s.lastAudio = TaskClock().now; return s.writer }) else { return }
        try? await writer.write(.binary(ByteBuffer(bytes: muLaw)))
    }

    /// Asks Deepgram to flush and close (its final results still arrive).
    func finish() async {
        try? await state.withLock({ $0.writer })?.write(.text(#"{"type":"CloseStream"}"#))
    }

    func handle(_ text: String) async {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] else { return }
        switch object["type"] as? String {
        case "Results":
            let alternative = ((object["channel"] as? [String: Any])?["alternatives"] as? [[String: Any]])?.first
            let transcript = (alternative?["transcript"] as? String ?? "").trimmingCharacters(in: .whitespaces)
            let fixed = object["is_final"] as? Bool == true
            let soFar = state.withLock { s -> String in
                if fixed, !transcript.isEmpty { s.segments.append(transcript) }
                return (s.segments + (fixed || transcript.isEmpty ? [] : [transcript])).joined(separator: " ")
            }
            if fixed, object["speech_final"] as? Bool == true {
                await flush()
            } else if !soFar.isEmpty {
                await onEvent(.heardSoFar(soFar, fixed: fixed))   // an interim may still change
            }
        case "UtteranceEnd":
            await flush()
        case "SpeechStarted":
            await onEvent(.speechStarted)
        default:
            break
        }
    }

    private func flush() async {
        let utterance = state.withLock { s -> String in
            defer { s.segments.removeAll() }
            return s.segments.joined(separator: " ")
        }
        if !utterance.isEmpty { await onEvent(.utterance(utterance)) }
    }
}
