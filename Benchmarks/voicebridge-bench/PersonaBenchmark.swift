import AsyncHTTPClient
import Calls
import Dialogue
import Foundation
import NIOCore
import Personas
import Realtime

/// `make bench`'s `personas` suite: every `CalleePersona` as a real call placed through
/// `voicebridge serve`'s REST API — local engine, built-in simulated callee speaking its script
/// with espeak-ng over SIP/RTP on 127.0.0.1, Moonshine listening — and the stored result read back
/// from `/api/outbound/{id}/result`. The share of statuses (and of normalised answers) that match
/// is the figure: recognition, dialogue, extraction and storage together. Each call's stored report
/// gives its turn latencies (caller's speech end → the reply's first frame to the leg), so the same
/// run measures turns with `concurrency` local-engine calls sharing the machine.
enum PersonaBenchmark {
    typealias Outcome = CalleePersona.Comparison

    struct Run {
        var outcomes: [Outcome]
        /// Milliseconds from the caller's speech end to the reply's first frame, every turn of every call.
        var turnLatencies: [Double]
        /// … and to the caller's words as text (end-of-turn window included).
        var transcriptLatencies: [Double]
        /// How long each turn's transcription took (from its start: the recognizer's own share).
        var recognitionTimes: [Double]
        /// Per call, how often the agent was cut off (its report's barge-ins).
        var bargeIns: [Int] = []
        /// The turns whose reply's first frame came later than `slowTurnMs`, with each step's
        /// milliseconds after the speech end (`turn_ended_ms`, `transcript_ms`, … of the report): where a slow one waited.
        var slowTurns: [[String: Int]] = []
        /// Each call whose stored result differed from its persona's: its transcript, a line a turn
        /// ("ai: …", "customer: …") — how the wrong answer came to be stored (heard so, read back, corrected).
        var differingTranscripts: [String: [String]] = [:]
        static let slowTurnMs = 1_500.0
    }

    /// `personas` in `language` (nil: the server's); `environment`: more of the server's settings;
    /// `templates`: one template body for each persona, created first, that its call is made from
    /// (its purpose, questions and language then the template's).
    static func run(serverBinary: String, concurrency: Int, personas: [CalleePersona] = CalleePersona.catalogue, language: String? = nil,
                    environment: [String: String] = [:], templates: [[String: Any]]? = nil) async throws -> Run {
        let server = try await personaServer(serverBinary, concurrency: concurrency, environment: environment)
        defer { server.stop() }
        let base = "http://127.0.0.1:\(server.httpPort)/api/outbound"
        let started = Date()
        var ids: [String] = []
        for (i, persona) in personas.enumerated() {
            var body: [String: Any] = [
                "caller_number": "070-1234-5678", "callee_number": String(format: "010-7000-%04d", i), "caller_display_name": "ABC Company",
                "purpose": "tomorrow's 2 pm meeting", "questions": persona.questions, "max_duration": 120,
                "metadata": ["simulated_answers": persona.script],
            ]
            if let language { body["language"] = language }
            if let template = templates?[i] {
                let created = try await json(post: "http://127.0.0.1:\(server.httpPort)/api/templates", body: template)
                guard let name = created["name"] as? String else { throw BenchError("creating a persona's template failed: \(created)") }
                body["template"] = name
                body["purpose"] = nil
                body["questions"] = nil
            }
            let created = try await json(post: base, body: body)
            guard let id = created["outbound_id"] as? String else { throw BenchError("creating a persona call failed: \(created)") }
            ids.append(id)
        }
        var run = Run(outcomes: [], turnLatencies: [], transcriptLatencies: [], recognitionTimes: [])
        for (id, persona) in zip(ids, personas) {
            _ = try await endedCall("\(base)/\(id)", within: .seconds(600))
            try await read(id, as: persona, from: base, since: started, into: &run)
            FileHandle.standardError.write(Data("personas: \(run.outcomes.count)/\(ids.count) \(persona.name)\n".utf8))
        }
        return run
    }

    /// A healthy `voicebridge serve` for persona calls: the local engine, `concurrency` calls at a
    /// time, no retries, and `environment` on top.
    static func personaServer(_ binary: String, concurrency: Int, environment: [String: String]) async throws -> ServerProcess {
        try await ServerProcess.start(binary: binary, environment: [
            "VOICEBRIDGE_ENGINE_MODE": "local",
            "VOICEBRIDGE_OUTBOUND_MAX_CONCURRENT_CALLS": "\(concurrency)",
            "VOICEBRIDGE_OUTBOUND_RING_TIMEOUT": "4",
            "VOICEBRIDGE_OUTBOUND_RETRY_ENABLED": "false",
            "VOICEBRIDGE_OUTBOUND_MAX_CALL_DURATION": "120",
            "VOICEBRIDGE_API_CALL_CREATIONS_PER_MINUTE": "1000",
        ].merging(environment) { _, given in given })
    }

    /// An ended call's stored result held against `persona`, and its turns' latencies, into `run`.
    static func read(_ id: String, as persona: CalleePersona, from base: String, since started: Date, into run: inout Run) async throws {
        let state = try await json(get: "\(base)/\(id)")["state"] as? String ?? ""
        let result = try await json(get: "\(base)/\(id)/result")
        let answers = (result["answers"] as? [[String: Any]] ?? []).enumerated().map { i, a in
            TaskTracker.Answer(questionID: "q\(i + 1)", question: "", status: TaskTracker.Status(rawValue: a["status"] as? String ?? "") ?? .pending,
                               answerText: a["answer_text"] as? String, answerSummary: a["answer_summary"] as? String,
                               confidence: (a["confidence"] as? NSNumber)?.doubleValue ?? 0, timesAsked: 0)
        }
        let outcome = persona.compare(state: CallState(rawValue: state), answers: answers, now: started)
        run.outcomes.append(outcome)
        if !outcome.mismatches.isEmpty {
            run.differingTranscripts[persona.name] = (result["transcript"] as? [[String: Any]] ?? []).map {
                "\($0["speaker"] as? String ?? "?"): \($0["text"] as? String ?? "")"
            }
        }
        let report = try await json(get: "\(base)/\(id)/report")
        run.bargeIns.append((report["interruptions"] as? [Any])?.count ?? 0)
        let turns = (report["turns"] as? [[String: Any]]) ?? []
        run.turnLatencies += turns.compactMap { ($0["first_frame_ms"] as? NSNumber)?.doubleValue }
        for turn in turns where (turn["first_frame_ms"] as? NSNumber)?.doubleValue ?? 0 > Run.slowTurnMs {
            var steps = turn.compactMapValues { ($0 as? NSNumber)?.intValue }.filter { $0.key.hasSuffix("_ms") }
            for case let (provider, ms as NSNumber) in (turn["first_byte_ms"] as? [String: Any]) ?? [:] { steps["first_byte_\(provider)_ms"] = ms.intValue }
            run.slowTurns.append(steps)
        }
        run.transcriptLatencies += turns.compactMap { ($0["transcript_ms"] as? NSNumber)?.doubleValue }
        run.recognitionTimes += turns.compactMap { (($0["first_byte_ms"] as? [String: Any])?["stt"] as? NSNumber)?.doubleValue }
    }

    /// The call at `url` once it has ended (or as it is when `limit` runs out).
    static func endedCall(_ url: String, within limit: Duration) async throws -> [String: Any] {
        var call: [String: Any] = [:]
        let deadline = ContinuousClock.now.advanced(by: limit)
        while ContinuousClock.now < deadline {
            call = try await json(get: url)
            if CallState(rawValue: call["state"] as? String ?? "")?.isTerminal == true { break }
            try await Task.sleep(for: .milliseconds(250))
        }
        return call
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

extension Array where Element == PersonaBenchmark.Outcome {
    /// Stored statuses that match, summed over the calls.
    var statuses: (matched: Int, total: Int) { reduce((0, 0)) { ($0.0 + $1.statuses.matched, $0.1 + $1.statuses.total) } }
    /// Normalised answers that match, summed over the calls.
    var summaries: (matched: Int, total: Int) { reduce((0, 0)) { ($0.0 + $1.summaries.matched, $0.1 + $1.summaries.total) } }
    /// Answers stored as answered, and the wrong ones among them, summed over the calls.
    var answered: (wrong: Int, total: Int) { reduce((0, 0)) { ($0.0 + $1.answered.wrong, $0.1 + $1.answered.total) } }
    /// A row for each call that differed from its script: the persona (after `prefix`) and what differed.
    func differences(prefix: String = "") -> [[String]] {
        filter { !$0.mismatches.isEmpty }.map { [prefix + $0.persona, $0.mismatches.joined(separator: "; ")] }
    }
}
