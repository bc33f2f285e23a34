import AsyncHTTPClient
import Calls
import Foundation
import NIOCore
import Personas

/// The same personas as test runs (`POST /api/tests`), which run their calls in virtual time: one
/// suite per question list, against a template with those questions, `concurrency` calls at a
/// time. Each call's stored result is read and held against its persona exactly as the real-time
/// run's are, so the two runs' figures — and each persona's differences — can be set side by side.
extension PersonaBenchmark {
    struct VirtualRun {
        var run: Run
        /// The runs' length on their calls' clock, and in real time.
        var callSeconds = 0.0
        var realSeconds = 0.0
        var speedUp: Double { realSeconds > 0 ? callSeconds / realSeconds : 0 }
    }

    /// `line`: the test runs' `line` (noise, echo; nil: a clean line).
    static func runInVirtualTime(serverBinary: String, concurrency: Int, personas: [CalleePersona] = CalleePersona.catalogue,
                                 environment: [String: String] = [:], line: [String: Any]? = nil) async throws -> VirtualRun {
        let server = try await personaServer(serverBinary, concurrency: concurrency, environment: environment)
        defer { server.stop() }
        let api = "http://127.0.0.1:\(server.httpPort)/api"
        let started = Date()
        var result = VirtualRun(run: Run(outcomes: [], turnLatencies: [], transcriptLatencies: [], recognitionTimes: []))
        var byPersona: [String: Int] = [:]
        var lists: [[String]] = []
        for persona in personas where !lists.contains(persona.questions) { lists.append(persona.questions) }
        var outcomes: [(Int, Run)] = []
        for (n, questions) in lists.enumerated() {
            let template = "personas-\(n + 1)"
            let created = try await json(post: "\(api)/templates", body: ["name": template, "purpose": "tomorrow's 2 pm meeting", "questions": questions])
            guard created["id"] != nil else { throw BenchError("creating template \(template) failed: \(created)") }
            let members = personas.enumerated().filter { $0.element.questions == questions }
            // JSON is YAML: the suite needs no YAML writer.
            let suite = ["name": template, "personas": members.map { ["name": $0.element.name, "says": $0.element.script] }] as [String: Any]
            let yaml = String(decoding: try JSONSerialization.data(withJSONObject: suite), as: UTF8.self)
            var body: [String: Any] = ["suite": yaml, "template": template, "parallel": concurrency, "time": "virtual"]
            if let line { body["line"] = line }
            let testRun = try await testRun(api, body: body)
            guard let timing = testRun["timing"] as? [String: Any], timing["time"] as? String == "virtual" else {
                throw BenchError("test run \(template) did not run in virtual time: \(testRun)")
            }
            if line != nil, testRun["line"] == nil { throw BenchError("test run \(template) did not run on the line asked for: \(testRun)") }
            result.callSeconds += (timing["call_seconds"] as? NSNumber)?.doubleValue ?? 0
            result.realSeconds += (timing["real_seconds"] as? NSNumber)?.doubleValue ?? 0
            for entry in testRun["personas"] as? [[String: Any]] ?? [] {
                guard let name = entry["name"] as? String, let index = members.first(where: { $0.element.name == name })?.offset,
                      let id = entry["call_id"] as? String else { throw BenchError("test run \(template): a persona without its call: \(entry)") }
                var one = Run(outcomes: [], turnLatencies: [], transcriptLatencies: [], recognitionTimes: [])
                try await read(id, as: personas[index], from: "\(api)/outbound", since: started, into: &one)
                outcomes.append((index, one))
                byPersona[name] = index
            }
            FileHandle.standardError.write(Data("personas in virtual time: \(outcomes.count)/\(personas.count)\n".utf8))
        }
        for (_, one) in outcomes.sorted(by: { $0.0 < $1.0 }) {
            result.run.outcomes += one.outcomes
            result.run.turnLatencies += one.turnLatencies
            result.run.transcriptLatencies += one.transcriptLatencies
            result.run.recognitionTimes += one.recognitionTimes
            result.run.bargeIns += one.bargeIns
        }
        guard byPersona.count == personas.count else { throw BenchError("test runs returned \(byPersona.count) of \(personas.count) personas") }
        return result
    }

    /// `POST /api/tests`, its NDJSON read to the end: the run's result.
    static func testRun(_ api: String, body: [String: Any]) async throws -> [String: Any] {
        var request = HTTPClientRequest(url: "\(api)/tests")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body)))
        let response = try await HTTPClient.shared.execute(request, timeout: .minutes(30))
        var text = ""
        for try await chunk in response.body { text += String(buffer: chunk) }
        guard response.status == .ok else { throw BenchError("POST /api/tests: \(response.status): \(text)") }
        for line in text.split(separator: "\n") {
            let message = (try JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
            if let error = message["error"] { throw BenchError("the test run stopped: \(error)") }
            if let result = message["result"] as? [String: Any] { return result }
        }
        throw BenchError("the test run ended without a result")
    }
}
