import AsyncHTTPClient
import Foundation
import NIOCore

/// One streamed chat completion from any OpenAI-compatible endpoint (OpenAI, Groq, Ollama, vLLM
/// differ only in base URL, key and model), read as server-sent events (PROTOCOLS.md §4.1).
/// Text arrives as it is written; tool calls are assembled from their deltas by index.
struct ChatCompletionStream {
    struct ToolCall: Equatable, Sendable {
        var id: String
        var name: String
        var arguments: String
    }

    enum Output: Equatable, Sendable {
        case text(String)
        /// The stream ended: the finish reason and the tool calls it carried, in index order.
        case finished(reason: String, toolCalls: [ToolCall])
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let baseURL: String
    let apiKey: String?
    let model: String

    /// Posts `messages` and calls `output` for each text piece, then once with `.finished`.
    /// Cancelling the calling task cancels the request.
    func run(messages: [[String: Any]], tools: [[String: Any]], output: (Output) async throws -> Void) async throws {
        var body: [String: Any] = ["model": model, "messages": messages, "stream": true]
        if !tools.isEmpty { body["tools"] = tools; body["tool_choice"] = "auto" }
        var request = HTTPClientRequest(url: (baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL) + "/chat/completions")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "Accept", value: "text/event-stream")
        if let apiKey, !apiKey.isEmpty { request.headers.add(name: "Authorization", value: "Bearer \(apiKey)") }
        request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body)))
        // OpenTelemetry's GenAI conventions name a model request's span; no message goes in it.
        try await request.executeTraced(timeout: .seconds(60), name: "chat \(model)",
                                        attributes: ["gen_ai.operation.name": "chat", "gen_ai.request.model": .string(model)]) { response in
            try await read(response, output: output)
        }
    }

    /// The streamed answer, as `output` calls.
    private func read(_ response: HTTPClientResponse, output: (Output) async throws -> Void) async throws {
        guard response.status == .ok else {
            let text = String(buffer: try await response.body.collect(upTo: 64 * 1024))
            throw Failure(description: "chat completions answered \(response.status.code): \(text.prefix(300))")
        }
        var parser = SSELineParser()
        var assembler = ToolCallAssembler()
        var finish = "stop"
        for try await chunk in response.body {
            for data in parser.feed(chunk) {
                if data == "[DONE]" {
                    try await output(.finished(reason: finish, toolCalls: assembler.calls))
                    return
                }
                guard let object = (try? JSONSerialization.jsonObject(with: Data(data.utf8))) as? [String: Any] else { continue }
                if let error = object["error"] as? [String: Any] {
                    throw Failure(description: "chat completions error: \(error["message"] as? String ?? "\(error)")")
                }
                for choice in object["choices"] as? [[String: Any]] ?? [] {
                    let delta = choice["delta"] as? [String: Any] ?? [:]
                    if let text = delta["content"] as? String, !text.isEmpty { try await output(.text(text)) }
                    for call in delta["tool_calls"] as? [[String: Any]] ?? [] { assembler.add(call) }
                    if let reason = choice["finish_reason"] as? String { finish = reason }
                }
            }
        }
        // A server that closes without [DONE] still ends the turn.
        try await output(.finished(reason: finish, toolCalls: assembler.calls))
    }
}

/// Splits a byte stream into SSE `data:` payloads (comments and other fields are skipped).
struct SSELineParser {
    private var pending: [UInt8] = []

    mutating func feed(_ buffer: ByteBuffer) -> [String] {
        pending += buffer.readableBytesView
        var payloads: [String] = []
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
            var line = String(decoding: pending[..<newline], as: UTF8.self)
            pending.removeSubrange(...newline)
            if line.hasSuffix("\r") { line.removeLast() }
            guard line.hasPrefix("data:") else { continue }
            payloads.append(String(line.dropFirst(5)).trimmingCharacters(in: .whitespaces))
        }
        return payloads
    }
}

/// Joins tool-call deltas: only the first of each index carries id and name; arguments come in
/// fragments to be concatenated.
struct ToolCallAssembler {
    private var byIndex: [Int: ChatCompletionStream.ToolCall] = [:]

    mutating func add(_ delta: [String: Any]) {
        let index = delta["index"] as? Int ?? 0
        var call = byIndex[index] ?? .init(id: "", name: "", arguments: "")
        if let id = delta["id"] as? String { call.id = id }
        let function = delta["function"] as? [String: Any] ?? [:]
        if let name = function["name"] as? String { call.name += name }
        if let arguments = function["arguments"] as? String { call.arguments += arguments }
        byIndex[index] = call
    }

    var calls: [ChatCompletionStream.ToolCall] { byIndex.keys.sorted().compactMap { byIndex[$0] } }
}
