import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import NIOCore
import Realtime

/// OpenAI-compatible chat (SSE, the script decides each answer), speech (raw 24 kHz PCM),
/// transcription and a Deepgram-style WebSocket, on one loopback port, in their documented wire
/// formats: what the cascade engine talks to in tests.
public enum FakeCascadeServers {
    /// What the fake servers saw, in order, with times.
    public final class Log: Sendable {
        public init() {}
        public let entries = Locked<[(at: ContinuousClock.Instant, what: String)]>([])
        public let chatBodies = Locked<[String]>([])
        public func add(_ what: String) { entries.withLock { $0.append((.now, what)) } }
        /// Logs the request's `traceparent` header ("none" without one) as `traceparent <service> <value>`.
        public func traceParent(_ service: String, _ headers: HTTPFields) {
            add("traceparent \(service) \(headers[HTTPField.Name("traceparent")!] ?? "none")")
        }
        public func first(_ prefix: String) -> ContinuousClock.Instant? { entries.value.first { $0.what.hasPrefix(prefix) }?.at }
        public func all(_ prefix: String) -> [String] { entries.value.map(\.what).filter { $0.hasPrefix(prefix) } }
        /// Returns once `count` entries start with `prefix` (and contain `text`, if given): at the entry that makes them.
        public func wait(for count: Int = 1, _ prefix: String, containing text: String? = nil, timeout: Duration = .seconds(10)) async throws {
            try await entries.wait(for: "\(count) × \(prefix) \(text ?? "")", timeout: timeout) { entries in
                entries.count { entry in entry.what.hasPrefix(prefix) && (text.map { entry.what.contains($0) } ?? true) } >= count
            }
        }
    }

    public static func sse(_ chunks: [[String: Any]]) -> [String] {
        chunks.map { "data: " + String(decoding: try! JSONSerialization.data(withJSONObject: ["id": "c1", "object": "chat.completion.chunk", "choices": [$0]]), as: UTF8.self) + "\n\n" }
    }

    public static func content(_ text: String) -> [String: Any] { ["index": 0, "delta": ["content": text], "finish_reason": NSNull()] }

    /// HTTP chat + speech (+ transcription) and the Deepgram WebSocket, on one port.
    /// What the fake Deepgram sends once it has had `afterAudio` of the caller's audio.
    public struct DeepgramStep: Sendable {
        public var afterAudio: Duration
        public var messages: [String]

        public init(afterAudio: Duration, _ messages: [String]) {
            self.afterAudio = afterAudio
            self.messages = messages
        }

        public static func results(_ transcript: String, isFinal: Bool, speechFinal: Bool = false) -> String {
            let object: [String: Any] = ["type": "Results", "is_final": isFinal, "speech_final": speechFinal, "channel": ["alternatives": [["transcript": transcript]]]]
            return String(decoding: try! JSONSerialization.data(withJSONObject: object), as: UTF8.self)
        }

        public static let speechStarted = #"{"type":"SpeechStarted","channel":[0,1],"timestamp":1.0}"#

        /// After 1 s of caller audio the caller "speaks": speech started, an interim, two finals, all at once.
        public static let yesICanAttend = [DeepgramStep(afterAudio: .seconds(1), [
            speechStarted, results("yes I", isFinal: false), results("Yes, I can", isFinal: true), results("attend.", isFinal: true, speechFinal: true),
        ])]
    }

    /// The caller's side as a session feeds an engine: 20 ms μ-law frames in real time, silent for
    /// `before`, then `speech` of speaking (our VAD's started / speech / ended), then silent for
    /// `after`. Returns when the caller's speech ended.
    public static func speakOnce(before: Duration, speech: Duration, after: Duration,
                                 send: @Sendable ([UInt8], SpeechActivity) async -> Void,
                                 speechEnded: @Sendable (ContinuousClock.Instant) -> Void = { _ in }) async throws {
        let frame = Duration.milliseconds(20)
        let (quiet, talking, rest) = (Int(before / frame), Int(speech / frame), Int(after / frame))
        let clock = ContinuousClock()
        var next = clock.now
        for n in 0..<(quiet + talking + rest) {
            let activity: SpeechActivity = n < quiet ? .silence : n == quiet ? .started : n < quiet + talking - 1 ? .speech : n == quiet + talking - 1 ? .ended : .silence
            await send([UInt8](repeating: n >= quiet && n < quiet + talking ? 0x10 : 0xFF, count: 160), activity)
            if activity == .ended { speechEnded(.now) }
            next = next.advanced(by: frame)
            try await clock.sleep(until: next)
        }
    }

    public static func withFakeServers(_ log: Log, chat: @escaping @Sendable (Int) -> (chunks: [String], delay: Duration),
                                       deepgram: [DeepgramStep] = DeepgramStep.yesICanAttend, transcription: String = "Yes, I can attend.",
                                       _ body: @Sendable (Int) async throws -> Void) async throws {
        try await withFakeServers(log, answering: { n, _ in chat(n) }, deepgram: deepgram, transcription: transcription, body)
    }

    /// As above, with a script that reads each request's body: for an engine that may ask more
    /// than the script's turns (an early reply that is then dropped), so the answer follows the
    /// conversation rather than the request's number.
    public static func withFakeServers(_ log: Log, answering chat: @escaping @Sendable (_ n: Int, _ body: String) -> (chunks: [String], delay: Duration),
                                       deepgram: [DeepgramStep] = DeepgramStep.yesICanAttend, transcription: String = "Yes, I can attend.",
                                       _ body: @Sendable (Int) async throws -> Void) async throws {
        let router = Router()
        let chatCount = Locked(0)
        router.post("v1/chat/completions") { request, _ -> Response in
            let text = String(buffer: try await request.body.collect(upTo: 1 << 20))
            log.chatBodies.withLock { $0.append(text) }
            log.traceParent("chat", request.headers)
            let n = chatCount.withLock { c -> Int in defer { c += 1 }; return c }
            log.add("chat \(n) start")
            let (chunks, delay) = chat(n, text)
            return Response(status: .ok, headers: [.contentType: "text/event-stream"], body: .init { writer in
                for chunk in chunks {
                    try await Task.sleep(for: delay)
                    try await writer.write(ByteBuffer(string: chunk))
                }
                log.add("chat \(n) end")
                try await writer.finish(nil)
            })
        }
        router.post("v1/audio/speech") { request, _ -> Response in
            let object = try JSONSerialization.jsonObject(with: Data(buffer: try await request.body.collect(upTo: 1 << 16))) as? [String: Any] ?? [:]
            log.traceParent("speech", request.headers)
            log.add("speech \(object["response_format"] ?? "")|\(object["input"] ?? "")")
            // 10 ms of 24 kHz PCM per character, in odd-sized chunks (samples split across them).
            let samples = (object["input"] as? String ?? "").count * 240
            let bytes = (0..<samples).flatMap { i -> [UInt8] in
                let v = Int16(3000 * sin(Double(i) * 0.1)); return [UInt8(truncatingIfNeeded: v), UInt8(truncatingIfNeeded: v >> 8)]
            }
            return Response(status: .ok, headers: [.contentType: "audio/pcm"], body: .init { writer in
                var offset = 0
                while offset < bytes.count {
                    let end = min(bytes.count, offset + 4801)
                    try await writer.write(ByteBuffer(bytes: bytes[offset..<end]))
                    offset = end
                }
                try await writer.finish(nil)
            })
        }
        router.post("v1/audio/transcriptions") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 22)
            let data = Data(buffer: body)
            let isWAV = data.range(of: Data("RIFF".utf8)) != nil && data.range(of: Data("WAVE".utf8)) != nil
            let form = String(decoding: data, as: UTF8.self)
            log.add("transcription wav=\(isWAV) model=\(form.contains("gpt-4o-transcribe"))")
            let language = form.components(separatedBy: "name=\"language\"\r\n\r\n").dropFirst().first?.prefix { !$0.isNewline } ?? ""
            log.add("stt language transcription=\(language)")
            let text = String(decoding: try JSONSerialization.data(withJSONObject: ["text": transcription]), as: UTF8.self)
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: text)))
        }
        let ws = Router(context: BasicWebSocketRequestContext.self)
        ws.ws("v1/listen") { request, _ in
            let q = request.uri.queryParameters
            log.traceParent("deepgram", request.headers)
            log.add("stt language deepgram=\(q.get("language") ?? "")")
            log.add("deepgram auth=\(request.headers[.authorization] ?? "") encoding=\(q.get("encoding") ?? "") rate=\(q.get("sample_rate") ?? "") interim=\(q.get("interim_results") ?? "")")
            return .upgrade([:])
        } onUpgrade: { inbound, outbound, _ in
            var audio = 0
            var steps = deepgram[...]
            for try await message in inbound.messages(maxSize: 1 << 20) {
                switch message {
                case .binary(let buffer):
                    audio += buffer.readableBytes
                    while let step = steps.first, audio >= Int(step.afterAudio / .milliseconds(1)) * 8 {
                        steps = steps.dropFirst()
                        for text in step.messages {
                            log.add("deepgram sent \(text)")
                            try await outbound.write(.text(text))
                        }
                    }
                case .text(let text):
                    log.add("deepgram text \(text)")
                    if text.contains("CloseStream") { return }
                }
            }
        }
        try await withLoopbackServer(router: router, webSocketRouter: ws, body)
    }
}
