import AsyncHTTPClient
import Calls
import Foundation
import NIOCore
import Realtime

/// `make bench`'s `personas` suite: every `CalleePersona` as a real call placed through
/// `voicebridge serve`'s REST API — local engine, built-in simulated callee speaking its script
/// with espeak-ng over SIP/RTP on 127.0.0.1, Moonshine listening — and the stored result read back
/// from `/api/outbound/{id}/result`. The share of statuses (and of normalised answers) that match
/// is the figure: recognition, dialogue, extraction and storage together.
enum PersonaBenchmark {
    struct Outcome {
        var persona: String
        var stateMatches: Bool
        var statuses: (matched: Int, total: Int)
        var summaries: (matched: Int, total: Int)
        var mismatches: [String]
    }

    static func run(serverBinary: String, concurrency: Int) async throws -> [Outcome] {
        let server = try ServerProcess(binary: serverBinary, environment: [
            "VOICEBRIDGE_ENGINE_MODE": "local",
            "VOICEBRIDGE_OUTBOUND_MAX_CONCURRENT_CALLS": "\(concurrency)",
            "VOICEBRIDGE_OUTBOUND_RING_TIMEOUT": "4",
            "VOICEBRIDGE_OUTBOUND_RETRY_ENABLED": "false",
            "VOICEBRIDGE_OUTBOUND_MAX_CALL_DURATION": "120",
            "VOICEBRIDGE_API_CALL_CREATIONS_PER_MINUTE": "1000",
        ])
        defer { server.stop() }
        try await server.waitUntilHealthy()
        let base = "http://127.0.0.1:\(server.httpPort)/api/outbound"
        let started = Date()
        var ids: [String] = []
        for (i, persona) in CalleePersona.catalogue.enumerated() {
            let body: [String: Any] = [
                "caller_number": "070-1234-5678", "callee_number": String(format: "010-7000-%04d", i), "caller_display_name": "ABC Company",
                "purpose": "tomorrow's 2 pm meeting", "questions": persona.questions, "max_duration": 120,
                "metadata": ["simulated_answers": persona.script],
            ]
            let created = try await json(post: base, body: body)
            guard let id = created["outbound_id"] as? String else { throw BenchError("creating a persona call failed: \(created)") }
            ids.append(id)
        }
        var outcomes: [Outcome] = []
        for (id, persona) in zip(ids, CalleePersona.catalogue) {
            var state = ""
            let deadline = ContinuousClock.now.advanced(by: .seconds(600))
            while ContinuousClock.now < deadline {
                state = try await json(get: "\(base)/\(id)")["state"] as? String ?? ""
                if CallState(rawValue: state)?.isTerminal == true { break }
                try await Task.sleep(for: .milliseconds(250))
            }
            let result = try await json(get: "\(base)/\(id)/result")
            let answers = result["answers"] as? [[String: Any]] ?? []
            let expectedSummaries = persona.expectedSummaries(now: started)
            var outcome = Outcome(persona: persona.name, stateMatches: state == persona.state.rawValue, statuses: (0, 0), summaries: (0, 0), mismatches: [])
            if !outcome.stateMatches { outcome.mismatches.append("state \(state), expected \(persona.state.rawValue)") }
            for (i, expected) in persona.expected.enumerated() {
                let answer = i < answers.count ? answers[i] : [:]
                let status = answer["status"] as? String ?? "missing"
                outcome.statuses.total += 1
                if status == expected.status.rawValue { outcome.statuses.matched += 1 } else {
                    outcome.mismatches.append("q\(i + 1) \(status) (expected \(expected.status.rawValue)), heard \"\(answer["answer_text"] as? String ?? "")\"")
                }
                guard let summary = expectedSummaries[i] else { continue }
                outcome.summaries.total += 1
                let got = answer["answer_summary"] as? String
                if got == summary { outcome.summaries.matched += 1 } else {
                    outcome.mismatches.append("q\(i + 1) answer \(got ?? "none") (expected \(summary)), heard \"\(answer["answer_text"] as? String ?? "")\"")
                }
            }
            outcomes.append(outcome)
            FileHandle.standardError.write(Data("personas: \(outcomes.count)/\(ids.count) \(persona.name)\n".utf8))
        }
        return outcomes
    }

    static func json(get url: String) async throws -> [String: Any] {
        try await send(HTTPClientRequest(url: url))
    }

    static func json(post url: String, body: [String: Any]) async throws -> [String: Any] {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body)))
        return try await send(request)
    }

    private static func send(_ request: HTTPClientRequest) async throws -> [String: Any] {
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 4 << 20)
        return (try JSONSerialization.jsonObject(with: Data(body.readableBytesView))) as? [String: Any] ?? [:]
    }
}
