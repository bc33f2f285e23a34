import AsyncHTTPClient
import Foundation
import Pipeline
import NIOCore

/// OpenAI `/audio/speech` with `response_format=pcm`: raw 24 kHz 16-bit little-endian mono,
/// streamed (PROTOCOLS.md §4.2). Samples are handed on as the body arrives.
struct OpenAISpeech {
    static let sampleRate = 24_000

    let baseURL: String
    let apiKey: String?
    let model: String
    let voice: String

    func synthesize(_ text: String, samples: ([Int16]) async throws -> Void) async throws {
        var request = HTTPClientRequest(url: (baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL) + "/audio/speech")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        if let apiKey, !apiKey.isEmpty { request.headers.add(name: "Authorization", value: "Bearer \(apiKey)") }
        let body: [String: Any] = ["model": model, "input": text, "voice": voice, "response_format": "pcm"]
        request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body)))
        try await request.executeTraced(timeout: .seconds(60), attributes: ["voicebridge.engine.request": "speech"]) { response in
            guard response.status == .ok else {
                let detail = String(buffer: try await response.body.collect(upTo: 64 * 1024))
                throw ChatCompletionStream.Failure(description: "speech answered \(response.status.code): \(detail.prefix(300))")
            }
            var odd: UInt8?   // a sample split across two chunks
            for try await chunk in response.body {
                var bytes = Array(chunk.readableBytesView)
                if let first = odd { bytes.insert(first, at: 0); odd = nil }
                if bytes.count % 2 == 1 { odd = bytes.removeLast() }
                guard !bytes.isEmpty else { continue }
                try await samples(PCM16.samples(bytes))
            }
        }
    }
}

/// OpenAI `/audio/transcriptions` for one utterance: μ-law wrapped in a WAV (format 7).
struct OpenAITranscription {
    let baseURL: String
    let apiKey: String?
    let model: String
    let language: String

    func transcribe(muLaw: [UInt8]) async throws -> String {
        let boundary = "voicebridge-\(UUID().uuidString)"
        var body = Data()
        func field(_ name: String, _ value: String) {
            body.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8))
        }
        field("model", model)
        field("language", String(language.prefix(2)))
        field("response_format", "json")
        body.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"utterance.wav\"\r\nContent-Type: audio/wav\r\n\r\n".utf8))
        body.append(Self.wav(muLaw: muLaw))
        body.append(Data("\r\n--\(boundary)--\r\n".utf8))
        var request = HTTPClientRequest(url: (baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL) + "/audio/transcriptions")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "multipart/form-data; boundary=\(boundary)")
        if let apiKey, !apiKey.isEmpty { request.headers.add(name: "Authorization", value: "Bearer \(apiKey)") }
        request.body = .bytes(ByteBuffer(bytes: body))
        return try await request.executeTraced(timeout: .seconds(30), attributes: ["voicebridge.engine.request": "transcription"]) { response in
            let data = try await response.body.collect(upTo: 1 << 20)
            guard response.status == .ok,
                  let object = (try? JSONSerialization.jsonObject(with: Data(data.readableBytesView))) as? [String: Any],
                  let text = object["text"] as? String else {
                throw ChatCompletionStream.Failure(description: "transcription answered \(response.status.code): \(String(buffer: data).prefix(300))")
            }
            return text
        }
    }

    /// A WAV file holding G.711 μ-law (format code 7), 8 kHz mono.
    static func wav(muLaw: [UInt8]) -> Data {
        var d = Data()
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { d.append(contentsOf: $0) } }
        func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { d.append(contentsOf: $0) } }
        d.append(Data("RIFF".utf8)); u32(UInt32(4 + 26 + 12 + 8 + muLaw.count)); d.append(Data("WAVE".utf8))
        d.append(Data("fmt ".utf8)); u32(18); u16(7); u16(1); u32(8000); u32(8000); u16(1); u16(8); u16(0)
        d.append(Data("fact".utf8)); u32(4); u32(UInt32(muLaw.count))
        d.append(Data("data".utf8)); u32(UInt32(muLaw.count)); d.append(contentsOf: muLaw)
        return d
    }
}
