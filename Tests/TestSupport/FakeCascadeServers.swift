import Foundation
import Hummingbird
import HummingbirdWebSocket
import NIOCore

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
        public func first(_ prefix: String) -> ContinuousClock.Instant? { entries.value.first { $0.what.hasPrefix(prefix) }?.at }
        public func all(_ prefix: String) -> [String] { entries.value.map(\.what).filter { $0.hasPrefix(prefix) } }
    }

    public static func sse(_ chunks: [[String: Any]]) -> [String] {
        chunks.map { "data: " + String(decoding: try! JSONSerialization.data(withJSONObject: ["id": "c1", "object": "chat.completion.chunk", "choices": [$0]]), as: UTF8.self) + "\n\n" }
    }

    public static func content(_ text: String) -> [String: Any] { ["index": 0, "delta": ["content": text], "finish_reason": NSNull()] }

    /// HTTP chat + speech (+ transcription) and the Deepgram WebSocket, on one port.
    public static func withFakeServers(_ log: Log, chat: @escaping @Sendable (Int) -> (chunks: [String], delay: Duration),
                                _ body: @Sendable (Int) async throws -> Void) async throws {
        let router = Router()
        let chatCount = Locked(0)
        router.post("v1/chat/completions") { request, _ -> Response in
            let text = String(buffer: try await request.body.collect(upTo: 1 << 20))
            log.chatBodies.withLock { $0.append(text) }
            let n = chatCount.withLock { c -> Int in defer { c += 1 }; return c }
            log.add("chat \(n) start")
            let (chunks, delay) = chat(n)
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
            log.add("transcription wav=\(isWAV) model=\(String(decoding: data, as: UTF8.self).contains("gpt-4o-transcribe"))")
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: #"{"text":"Yes, I can attend."}"#)))
        }
        let ws = Router(context: BasicWebSocketRequestContext.self)
        ws.ws("v1/listen") { request, _ in
            let q = request.uri.queryParameters
            log.add("deepgram auth=\(request.headers[.authorization] ?? "") encoding=\(q.get("encoding") ?? "") rate=\(q.get("sample_rate") ?? "") interim=\(q.get("interim_results") ?? "")")
            return .upgrade([:])
        } onUpgrade: { inbound, outbound, _ in
            var audio = 0
            var said = false
            for try await message in inbound.messages(maxSize: 1 << 20) {
                switch message {
                case .binary(let buffer):
                    audio += buffer.readableBytes
                    // After 1 s of caller audio the caller "speaks": speech started, an interim, two finals.
                    if audio >= 8000, !said {
                        said = true
                        try await outbound.write(.text(#"{"type":"SpeechStarted","channel":[0,1],"timestamp":1.0}"#))
                        try await outbound.write(.text(#"{"type":"Results","is_final":false,"speech_final":false,"channel":{"alternatives":[{"transcript":"yes I"}]}}"#))
                        try await outbound.write(.text(#"{"type":"Results","is_final":true,"speech_final":false,"channel":{"alternatives":[{"transcript":"Yes, I can"}]}}"#))
                        try await outbound.write(.text(#"{"type":"Results","is_final":true,"speech_final":true,"channel":{"alternatives":[{"transcript":"attend."}]}}"#))
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
