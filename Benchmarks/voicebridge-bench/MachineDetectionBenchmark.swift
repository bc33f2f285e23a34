import Foundation

/// `make bench`'s `amd` suite: answering-machine detection on real calls through `voicebridge
/// serve` — the built-in simulated callee answers as a machine (an espeak-ng greeting, then a
/// 1 kHz beep) or as a person (a short "Hello?", then waiting) over SIP/RTP on 127.0.0.1, with
/// `machine_detection: hangup` — and each stored verdict (`answered_by`, `answered_by_ms`) read
/// back from `/api/outbound/{id}`.
enum MachineDetectionBenchmark {
    struct Persona {
        var name: String
        var script: [String]
        var expected: String
    }

    static let personas = [
        Persona(name: "machine: 12 s greeting + beep", script: ["<voicemail long>"], expected: "machine"),
        Persona(name: "machine: short greeting + beep", script: ["<voicemail short>"], expected: "machine"),
        Persona(name: "machine: Korean greeting + beep", script: ["<voicemail ko>"], expected: "machine"),
        Persona(name: "person: \"Hello?\"", script: ["<says Hello?>", "<hangup>"], expected: "human"),
        Persona(name: "person: \"여보세요?\"", script: ["<says 여보세요?>", "<hangup>"], expected: "human"),
        Persona(name: "person: \"Hello, Tom speaking.\"", script: ["<says Hello, Tom speaking.>", "<hangup>"], expected: "human"),
    ]

    struct Verdict {
        var persona: String
        var expected: String
        var answeredBy: String?
        var milliseconds: Int?
    }

    static func run(serverBinary: String, repetitions: Int, concurrency: Int) async throws -> [Verdict] {
        let server = try await ServerProcess.start(binary: serverBinary, environment: [
            "VOICEBRIDGE_ENGINE_MODE": "local",
            "VOICEBRIDGE_OUTBOUND_MAX_CONCURRENT_CALLS": "\(concurrency)",
            "VOICEBRIDGE_OUTBOUND_RING_TIMEOUT": "4",
            "VOICEBRIDGE_OUTBOUND_RETRY_ENABLED": "false",
            "VOICEBRIDGE_OUTBOUND_MAX_CALL_DURATION": "60",
            "VOICEBRIDGE_OUTBOUND_MACHINE_DETECTION_ACTION": "hangup",
            "VOICEBRIDGE_API_CALL_CREATIONS_PER_MINUTE": "1000",
        ])
        defer { server.stop() }
        let base = "http://127.0.0.1:\(server.httpPort)/api/outbound"
        var placed: [(String, Persona)] = []
        for round in 0..<repetitions {
            for (i, persona) in personas.enumerated() {
                let body: [String: Any] = [
                    "caller_number": "070-1234-5678", "callee_number": String(format: "010-7100-%02d%02d", round, i), "caller_display_name": "ABC Company",
                    "purpose": "tomorrow's 2 pm meeting", "questions": ["Can you attend?"], "max_duration": 60,
                    "metadata": ["simulated_answers": persona.script],
                ]
                let created = try await PersonaBenchmark.json(post: base, body: body)
                guard let id = created["outbound_id"] as? String else { throw BenchError("creating a detection call failed: \(created)") }
                placed.append((id, persona))
            }
        }
        var verdicts: [Verdict] = []
        for (id, persona) in placed {
            let call = try await PersonaBenchmark.endedCall("\(base)/\(id)", within: .seconds(300))
            verdicts.append(Verdict(persona: persona.name, expected: persona.expected, answeredBy: call["answered_by"] as? String,
                                    milliseconds: (call["answered_by_ms"] as? NSNumber)?.intValue))
            FileHandle.standardError.write(Data("amd: \(verdicts.count)/\(placed.count) \(persona.name) → \(call["answered_by"] ?? "none")\n".utf8))
        }
        return verdicts
    }
}

extension BenchMain {
    static func machineDetection(output: String) async throws {
        let repetitions = 4, concurrency = 6
        let personas = MachineDetectionBenchmark.personas
        print("== Answering-machine detection: \(personas.count) personas × \(repetitions), real calls through `voicebridge serve` (espeak-ng → SIP/RTP, local engine), \(concurrency) at a time")
        let verdicts = try await MachineDetectionBenchmark.run(serverBinary: try serverBinary(), repetitions: repetitions, concurrency: concurrency)
        let median = { (values: [Int]) -> Double in EngineBenchmark.percentiles(values.map(Double.init)).p50 }
        var rows: [[String]] = []
        for persona in personas {
            let mine = verdicts.filter { $0.persona == persona.name }
            let right = mine.filter { $0.answeredBy == persona.expected }.count
            let counts = Dictionary(grouping: mine, by: { $0.answeredBy ?? "none" }).map { "\($0.key) \($0.value.count)" }.sorted().joined(separator: ", ")
            rows.append([persona.name, "\(right)/\(mine.count)", counts, format(median(mine.compactMap(\.milliseconds)), digits: 0),
                         "\(mine.compactMap(\.milliseconds).max() ?? 0)"])
        }
        let right = verdicts.filter { $0.answeredBy == $0.expected }.count
        let accuracy = verdicts.isEmpty ? 0 : Double(right) * 100 / Double(verdicts.count)
        let humans = verdicts.filter { $0.expected == "human" }.compactMap(\.milliseconds)
        let machines = verdicts.filter { $0.expected == "machine" }.compactMap(\.milliseconds)
        rows.append(["all", "\(right)/\(verdicts.count) (\(format(accuracy, digits: 1)) %)", "goal ≥ 90 %", "", ""])
        print(table(["persona", "right", "verdicts", "median ms after answer", "max ms"], rows))
        print(table(["detection time", "median ms", "max ms", "goal"], [
            ["people (the agent's greeting waits this long)", format(median(humans), digits: 0), "\(humans.max() ?? 0)", "≤ 3500"],
            ["machines", format(median(machines), digits: 0), "\(machines.max() ?? 0)", "—"],
        ]))
        let json: [String: Any] = [
            "calls": verdicts.count, "right": right, "accuracy_pct": accuracy, "goal": "≥ 90 % right; people decided within 3500 ms",
            "human_ms": ["median": median(humans), "max": humans.max() ?? 0], "machine_ms": ["median": median(machines), "max": machines.max() ?? 0],
            "verdicts": verdicts.map { ["persona": $0.persona, "expected": $0.expected, "answered_by": $0.answeredBy ?? "none", "ms": $0.milliseconds ?? -1] },
        ]
        try write(json, to: output, as: "amd.json")
    }
}
