import Foundation
import MCP
import Pipeline
import Synchronization

/// Runs the operator's tools for the engines: checks the model's arguments against the tool's
/// schema, fills in secrets, makes the request and turns whatever happened into a JSON answer the
/// model can act on — the tool's own answer, or `{"error": …}` saying what went wrong — and a
/// record with secrets masked.
public struct ToolRunner: Sendable {
    /// What the model is handed, and what is kept.
    public struct Outcome: Sendable, Equatable {
        public var answer: String
        public var record: ToolCallRecord

        public init(answer: String, record: ToolCallRecord) {
            self.answer = answer
            self.record = record
        }
    }

    let transport: any ToolTransport
    let secrets: ToolSecrets
    /// Sees every call's record (the server counts them in `/metrics`).
    let observe: @Sendable (ToolCallRecord) -> Void
    /// Tools the server answers itself, by name (a call's `search_knowledge`).
    private(set) var localTools: [String: any LocalTool] = [:]

    public init(transport: any ToolTransport, secrets: ToolSecrets, observe: @escaping @Sendable (ToolCallRecord) -> Void = { _ in }) {
        self.transport = transport
        self.secrets = secrets
        self.observe = observe
    }

    /// This runner with `tool` answering calls to `name` (a call's own knowledge search).
    public func adding(_ tool: any LocalTool, named name: String) -> ToolRunner {
        var runner = self
        runner.localTools[name] = tool
        return runner
    }

    /// Calls `tool` with the model's `arguments` (a JSON text). Timed on the call's clock
    /// (`TaskClock`): in virtual time a request to the operator's server takes none of it. In a
    /// traced call, a span (OpenTelemetry's GenAI conventions: `execute_tool <name>`) under which
    /// its request is made; no argument and no answer in it.
    public func call(_ tool: ToolDefinition, arguments: String) async -> Outcome {
        let clock = TaskClock()
        let started = clock.now
        let outcome = await ToolCallRecord.traced(tool: tool.name, { await attempt(tool, arguments: arguments) }, status: \.status)
        let milliseconds = Int(started.duration(to: clock.now) / .milliseconds(1))
        let record = ToolCallRecord(tool: tool.name, arguments: secrets.masked(arguments), status: outcome.status, httpStatus: outcome.httpStatus,
                                    milliseconds: milliseconds, error: outcome.error.map(secrets.masked), passedOn: outcome.passedOn)
        observe(record)
        return Outcome(answer: secrets.masked(outcome.answer), record: record)
    }

    /// Calls `tool`, and if it has not answered after `ToolDefinition.waitBeforeSpeaking`, runs
    /// `waiting` (the engine says the tool's waiting line) while the request goes on: the caller
    /// never hears dead air. A line begun is said to its end; the answer is returned after it.
    /// The wait is on the call's clock (`TaskClock`); in virtual time time stands still while the
    /// operator's server answers, so there the line is said only while a local tool waits on it.
    public func call(_ tool: ToolDefinition, arguments: String, whileWaiting waiting: @escaping @Sendable () async -> Void) async -> Outcome {
        final class Line: Sendable { let state = Mutex((answered: false, speaking: false)) }
        let line = Line()
        return await withTaskGroup(of: Outcome?.self) { group -> Outcome in
            group.addTask { await self.call(tool, arguments: arguments) }
            group.addTask {
                try? await TaskClock().sleep(for: ToolDefinition.waitBeforeSpeaking)
                let speak = line.state.withLock { l in
                    if l.answered || Task.isCancelled { return false }
                    l.speaking = true
                    return true
                }
                if speak { await waiting() }
                return nil
            }
            var finished: Outcome?
            while let next = await group.next() {
                guard let next else { continue }
                finished = next
                if line.state.withLock({ l in l.answered = true; return !l.speaking }) { group.cancelAll() }   // no line needed
            }
            return finished!   // the request's task always returns an outcome
        }
    }

    /// Sends `body` to `tool` as it is — a tool run after the call (`on_end`): no model, no schema
    /// check — with its headers, secrets and timeout; the caller judges the answer (retries and all).
    public func send(_ tool: ToolDefinition, body: JSONValue) async throws -> ToolHTTPResponse {
        try await transport.send(try request(for: tool, arguments: body), timeout: .milliseconds(tool.timeoutMilliseconds), bodyLimit: ToolDefinition.answerLimit)
    }

    /// The answer and record for a tool the model named that this call does not have.
    public func unknown(_ name: String, arguments: String) -> Outcome {
        let outcome = Self.unknownTool(name, arguments: secrets.masked(arguments))
        observe(outcome.record)
        return outcome
    }

    public static func unknownTool(_ name: String, arguments: String) -> Outcome {
        let record = ToolCallRecord(tool: String(name.prefix(64)), arguments: arguments, status: .unknownTool, milliseconds: 0, error: "no tool of that name")
        return Outcome(answer: error("unknown_tool", "there is no tool named \(name.prefix(64))"), record: record)
    }

    private struct Attempt {
        var status: ToolCallRecord.Status
        var answer: String
        var httpStatus: Int? = nil
        var error: String? = nil
        var passedOn: String? = nil
    }

    private func attempt(_ tool: ToolDefinition, arguments: String) async -> Attempt {
        let value: JSONValue
        do { value = try JSONValue.parse(arguments.isEmpty ? "{}" : arguments) } catch {
            return failed(.invalidArguments, "the arguments are \(error)")
        }
        // An MCP server's schema may use keywords this check does not know: the server checks those itself.
        let schema = try? JSONSchema(parameters: tool.parameters)
        let violations = schema?.violations(of: value) ?? (tool.mcpTool == nil ? ["the tool's schema is unusable"] : [])
        guard violations.isEmpty else { return failed(.invalidArguments, violations.joined(separator: "; ")) }
        if let local = localTools[tool.name] {
            let answer = await local.run(value)
            return Attempt(status: answer.error == nil ? .ok : .failed, answer: answer.answer.serialized, error: answer.error, passedOn: answer.passedOn)
        }
        // The operator's server answers on its own time: a call in virtual time waits for it with
        // time standing still, as for a database transaction, and its answer is no stray wake-up.
        if let name = tool.mcpTool { return await VirtualTimeExecutor.outside { await callMCP(tool, name: name, arguments: value) } }
        let request: ToolHTTPRequest
        do { request = try self.request(for: tool, arguments: value) } catch {
            return failed(.failed, "\(error)")
        }
        let response: ToolHTTPResponse
        do {
            response = try await VirtualTimeExecutor.outside { () async throws(ToolTransportFailure) -> ToolHTTPResponse in
                try await transport.send(request, timeout: .milliseconds(tool.timeoutMilliseconds), bodyLimit: ToolDefinition.answerLimit)
            }
        } catch {
            switch error {
            case .timeout: return failed(.timeout, "the tool did not answer within \(tool.timeoutMilliseconds) ms")
            case .tooLarge: return failed(.tooLarge, "the tool's answer is larger than \(ToolDefinition.answerLimit) bytes")
            case .refused(let why): return failed(.refused, "the server may not connect there: \(why)")
            case .connectionFailed: return failed(.failed, "could not connect to the tool")
            }
        }
        let body = response.body.isEmpty ? JSONValue.object([:]) : try? JSONValue.parse(String(decoding: response.body, as: UTF8.self))
        guard (200..<300).contains(response.status) else {
            var answer: [String: JSONValue] = ["error": .string("http_error"), "status": .integer(Int64(response.status))]
            if let body { answer["answer"] = body }
            return Attempt(status: .httpError, answer: JSONValue.object(answer).serialized, httpStatus: response.status,
                           error: "the tool answered HTTP \(response.status)")
        }
        guard let body else { return failed(.invalidJSON, "the tool's answer is not JSON", httpStatus: response.status) }
        return Attempt(status: .ok, answer: body.serialized, httpStatus: response.status)
    }

    /// An MCP server's tool: `tools/call` in a session of its own. Its text content is the answer
    /// (as JSON when it is JSON); `isError` makes it a failure the model is told of.
    private func callMCP(_ tool: ToolDefinition, name: String, arguments: JSONValue) async -> Attempt {
        let mcpArguments: [String: Value]
        do {
            mcpArguments = try JSONDecoder().decode([String: Value].self, from: JSONEncoder().encode(arguments))
        } catch {
            return failed(.invalidArguments, "the arguments are not an object")
        }
        do {
            let (content, isError) = try await MCPSession.with(tool.url, headers: tool.headers, secrets: secrets, transport: transport,
                                                              timeout: .milliseconds(tool.timeoutMilliseconds)) { client in
                try await client.callTool(name: name, arguments: mcpArguments)
            }
            let text = content.compactMap { if case .text(let text, _, _) = $0 { text } else { nil } }.joined(separator: "\n")
            if isError == true { return failed(.failed, "the MCP tool reported an error: \(text.prefix(500))") }
            let answer = (try? JSONValue.parse(text)) ?? .object(["content": .string(text)])
            guard answer.serialized.utf8.count <= ToolDefinition.answerLimit else {
                return failed(.tooLarge, "the tool's answer is larger than \(ToolDefinition.answerLimit) bytes")
            }
            return Attempt(status: .ok, answer: answer.serialized)
        } catch is MCPSession.TimedOut {
            return failed(.timeout, "the tool did not answer within \(tool.timeoutMilliseconds) ms")
        } catch let missing as SecretReference.Missing {
            return failed(.failed, missing.description)
        } catch {
            return failed(.failed, "the MCP server failed: \(String(describing: error).prefix(300))")
        }
    }

    private func failed(_ status: ToolCallRecord.Status, _ message: String, httpStatus: Int? = nil) -> Attempt {
        Attempt(status: status, answer: Self.error(status.rawValue, message), httpStatus: httpStatus, error: message)
    }

    static func error(_ code: String, _ message: String) -> String {
        JSONValue.object(["error": .string(code), "message": .string(message)]).serialized
    }

    /// GET and DELETE: the arguments as query parameters (strings as they are, anything else as
    /// JSON); POST, PUT, PATCH: the arguments as a JSON body.
    func request(for tool: ToolDefinition, arguments: JSONValue) throws(SecretReference.Missing) -> ToolHTTPRequest {
        var headers: [(name: String, value: String)] = [("Accept", "application/json"), ("User-Agent", "VoiceBridge tools")]
        for header in try SecretReference.resolve(headers: tool.headers, in: secrets, for: (try? OutboundURL(tool.url))?.host ?? "") {
            headers.removeAll { $0.name.lowercased() == header.name.lowercased() }
            headers.append(header)
        }
        if ["GET", "DELETE"].contains(tool.method) {
            guard var components = URLComponents(string: tool.url) else { return ToolHTTPRequest(method: tool.method, url: tool.url, headers: headers, body: nil) }
            let items = (arguments.objectValue ?? [:]).sorted { $0.key < $1.key }.map { name, value in
                URLQueryItem(name: name, value: value.stringValue ?? value.serialized)
            }
            if !items.isEmpty { components.queryItems = (components.queryItems ?? []) + items }
            // `+` is a space to many servers: spelled out, it stays a plus.
            let query = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
            components.percentEncodedQuery = query
            return ToolHTTPRequest(method: tool.method, url: components.string ?? tool.url, headers: headers, body: nil)
        }
        if !headers.contains(where: { $0.name.lowercased() == "content-type" }) { headers.append(("Content-Type", "application/json")) }
        return ToolHTTPRequest(method: tool.method, url: tool.url, headers: headers, body: Array(arguments.serialized.utf8))
    }
}
