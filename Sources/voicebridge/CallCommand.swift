import ArgumentParser
import AsyncHTTPClient
import Foundation
import HummingbirdWSClient
import Logging
import NIOCore

/// `voicebridge call`: places a call through a running server's REST API; with `--wait`, follows
/// it over `/api/events` and prints the answers and transcript. Exit status 0 only when the call
/// completed; 1 when it ended otherwise; 2 when the server refused the request.
struct CallCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "call",
        abstract: "Place an AI call through a running VoiceBridge server.",
        discussion: """
            Example (the built-in simulated callee answers with the --answer lines):
              voicebridge call --from 070-1234-5678 --to 010-9876-5432 --purpose "tomorrow's 2 pm meeting" \\
                --question "Is Friday still good for you?" --answer "Yes, Friday works." --wait
            """
    )

    @Option(name: .long, help: "Callee number.") var to: String
    @Option(name: .long, help: "Caller number (must be an allowed caller ID if the server has a list).") var from: String
    @Option(name: .long, help: "What the call is about.") var purpose: String
    @Option(name: .customLong("question"), help: "A question to ask (repeat for several).") var questions: [String] = []
    @Option(name: .long, help: "Caller display name.") var displayName: String?
    @Option(name: .long, help: "Longest call, in seconds.") var maxDuration: Int?
    @Option(name: .long, help: "The call's language: en or ko (default: the server's engine.language).") var language: String?
    @Option(name: .customLong("answer"), help: "A scripted answer for the built-in simulated callee (repeat, in order).") var answers: [String] = []
    @Option(name: .long, help: "Server base URL.") var server = "http://127.0.0.1:8080"
    @Option(name: .long, help: "API bearer token (default: $VOICEBRIDGE_API_TOKEN).") var token: String?
    @Flag(name: .long, help: "Follow the call live and print its result; exit non-zero unless it completed.") var wait = false

    func run() async throws {
        let base = server.hasSuffix("/") ? String(server.dropLast()) : server
        let bearer = token ?? ProcessInfo.processInfo.environment["VOICEBRIDGE_API_TOKEN"]
        let client = APIClient(base: base, token: bearer)
        var body: [String: Any] = ["caller_number": from, "callee_number": to, "purpose": purpose, "questions": questions]
        if let displayName { body["caller_display_name"] = displayName }
        if let maxDuration { body["max_duration"] = maxDuration }
        if let language { body["language"] = language }
        if !answers.isEmpty { body["metadata"] = ["simulated_answers": answers] }
        let json = try JSONSerialization.data(withJSONObject: body)

        guard wait else {
            let created = try await client.createOrExit(json)
            print("\(created["outbound_id"] as? String ?? "?") \(created["state"] as? String ?? "")")
            return
        }
        // Listen first, so no event of the new call can be missed.
        let follower = CallFollower(base: base, token: bearer)
        let outcome = try await follower.follow { try await client.createOrExit(json)["outbound_id"] as? String ?? "" }
        let result = try await client.get("/api/outbound/\(outcome.id)/result")
        CallReport.print(result)
        if outcome.finalState != "completed" { throw ExitCode(1) }
    }
}

/// The REST calls the CLI makes.
struct APIClient: Sendable {
    let base: String
    let token: String?

    func createOrExit(_ body: Data) async throws -> [String: Any] {
        try await expect(202, "POST", "/api/outbound/", body: body, refusing: "the call")
    }

    func get(_ path: String) async throws -> [String: Any] { try await send("GET", path, body: nil).1 }

    func send(_ method: String, _ path: String, body: Data?, contentType: String = "application/json") async throws -> (Int, [String: Any]) {
        let response = try await execute(method, path, body: body, contentType: contentType)
        let data = try await response.body.collect(upTo: 8 << 20)
        let object = (try? JSONSerialization.jsonObject(with: Data(data.readableBytesView))) as? [String: Any] ?? [:]
        return (Int(response.status.code), object)
    }

    /// The response, body not read yet; a server out of reach exits 2.
    /// `timeout`: for the whole answer, streamed bodies included.
    func execute(_ method: String, _ path: String, body: Data? = nil, contentType: String = "application/json",
                 timeout: TimeAmount = .seconds(300)) async throws -> HTTPClientResponse {
        var request = HTTPClientRequest(url: base + path)
        request.method = .init(rawValue: method)
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let body {
            request.headers.add(name: "Content-Type", value: contentType)
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        do { return try await HTTPClient.shared.execute(request, timeout: timeout) } catch {
            FileHandle.standardError.write(Data("voicebridge: cannot reach \(base): \(error)\n".utf8))
            throw ExitCode(2)
        }
    }

    /// The JSON answer when the status is `status`; otherwise the server's problem on stderr and exit 2.
    func expect(_ status: Int, _ method: String, _ path: String, json: [String: Any]? = nil, body: Data? = nil, contentType: String = "application/json",
                refusing what: String) async throws -> [String: Any] {
        let payload = try json.map { try JSONSerialization.data(withJSONObject: $0) } ?? body
        let (got, object) = try await send(method, path, body: payload, contentType: contentType)
        guard got == status else { throw Self.refused(what, status: got, problem: object) }
        return object
    }

    /// The server's problem (its detail, each field's message) on stderr; the exit status 2 to throw.
    static func refused(_ what: String, status: Int, problem: [String: Any]) -> ExitCode {
        var message = "voicebridge: the server refused \(what) (\(status)): \(problem["detail"] as? String ?? "")"
        for field in problem["errors"] as? [[String: String]] ?? [] { message += "\n  \(field["field"] ?? ""): \(field["message"] ?? "")" }
        FileHandle.standardError.write(Data((message + "\n").utf8))
        return ExitCode(2)
    }
}
