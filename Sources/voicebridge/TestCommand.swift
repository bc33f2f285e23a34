import ArgumentParser
import Foundation
import NIOCore
import TestRuns

/// `voicebridge test`: runs a test suite against a template on a running server (`POST
/// /api/tests`), every persona a real call to the built-in simulated callee; prints each persona
/// as it ends, then a pass/fail table, and writes JUnit XML. Exit status 0 when every persona
/// passed, 1 when one failed, 2 when the server refused the run or could not be reached.
struct TestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Run a test suite of simulated callers against a template.",
        discussion: """
            Example (examples/tests/meeting.yaml, against a template named "meeting"):
              voicebridge test --template meeting --suite examples/tests/meeting.yaml --parallel 3 --junit test-results.xml
            """
    )

    @Option(name: .long, help: "The template to test (default: the suite's template:).") var template: String?
    @Option(name: .long, help: "The suite, a YAML file.") var suite: String
    @Option(name: .long, help: "Calls at a time, 1 to 10.") var parallel = 1
    @Option(name: .long, help: "Caller number for the test calls (must be an allowed caller ID if the server has a list).") var from = "0000000000"
    @Option(name: .long, help: "Write JUnit XML here.") var junit: String?
    @Option(name: .long, help: "Server base URL.") var server = "http://127.0.0.1:8080"
    @Option(name: .long, help: "API bearer token (default: $VOICEBRIDGE_API_TOKEN).") var token: String?
    @Flag(name: .long, help: "Run the calls in real time (default: virtual time, as fast as the CPU allows, where the agent runs in the server).")
    var realTime = false
    @Option(name: .long, help: "Put the calls on a line with this noise behind the callee (babble, street, office, television, pink, music-on-hold …).")
    var lineNoise: String?
    @Option(name: .long, help: "The callee's speech to that noise, in dB (default 10).") var lineSnr: Double?
    @Option(name: .long, parsing: .unconditional, help: "Return the agent's own audio as echo this many dB below it (e.g. -10).") var lineEcho: Double?
    @Option(name: .long, help: "The echo's delay in milliseconds (default 150).") var lineEchoDelay: Int?

    func run() async throws {
        let base = server.hasSuffix("/") ? String(server.dropLast()) : server
        let yaml: String
        do { yaml = try String(contentsOfFile: suite, encoding: .utf8) } catch {
            FileHandle.standardError.write(Data("voicebridge: cannot read the suite \(suite): \(error.localizedDescription)\n".utf8))
            throw ExitCode(2)
        }
        var body: [String: Any] = ["suite": yaml, "parallel": parallel, "caller_number": from, "time": realTime ? "real" : "virtual"]
        if let template { body["template"] = template }
        let line: [String: Any?] = ["noise": lineNoise, "snr_db": lineSnr, "echo_db": lineEcho, "echo_delay_ms": lineEchoDelay]
        if line.values.contains(where: { $0 != nil }) { body["line"] = line.compactMapValues { $0 } }
        let client = APIClient(base: base, token: token ?? ProcessInfo.processInfo.environment["VOICEBRIDGE_API_TOKEN"])
        let response = try await client.execute("POST", "/api/tests", body: try JSONSerialization.data(withJSONObject: body), timeout: .hours(6))
        guard response.status.code == 200 else {
            let data = try await response.body.collect(upTo: 1 << 20)
            let object = (try? JSONSerialization.jsonObject(with: Data(data.readableBytesView))) as? [String: Any] ?? [:]
            throw APIClient.refused("the test run", status: Int(response.status.code), problem: object)
        }
        let link = { (id: String) in "\(base)/#/calls/\(id)" }
        var pending = ByteBuffer()
        var result: TestRunResult?
        for try await chunk in response.body {
            var chunk = chunk
            pending.writeBuffer(&chunk)
            while let newline = pending.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) {
                let line = pending.readString(length: newline - pending.readerIndex) ?? ""
                pending.moveReaderIndex(forwardBy: 1)
                guard !line.isEmpty else { continue }   // the server's keep-alive
                let message = try JSONDecoder().decode(Message.self, from: Data(line.utf8))
                if let persona = message.persona {
                    print("  \(persona.passed ? "✓" : "✗") \(persona.name) (\(persona.state), \(String(format: "%.1f", persona.seconds)) s)")
                }
                if let error = message.error {
                    FileHandle.standardError.write(Data("voicebridge: the test run stopped: \(error)\n".utf8))
                    throw ExitCode(2)
                }
                result = message.result ?? result
            }
        }
        guard let result else {
            FileHandle.standardError.write(Data("voicebridge: the server closed the run before its result\n".utf8))
            throw ExitCode(2)
        }
        print("")
        print(result.table(callLink: link), terminator: "")
        if let junit {
            do { try result.junitXML(callLink: link).write(toFile: junit, atomically: true, encoding: .utf8) } catch {
                FileHandle.standardError.write(Data("voicebridge: cannot write \(junit): \(error.localizedDescription)\n".utf8))
                throw ExitCode(2)
            }
        }
        if !result.passed { throw ExitCode(1) }
    }

    /// One line of the server's NDJSON answer.
    struct Message: Decodable {
        var persona: TestRunResult.PersonaResult?
        var result: TestRunResult?
        var error: String?
    }
}
