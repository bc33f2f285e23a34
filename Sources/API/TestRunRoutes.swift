import Bridge
import Calls
import Foundation
import Hummingbird
import NIOCore
import TestRuns

/// `POST /api/tests`: runs a test suite (YAML) against a template, every persona a real call to the
/// built-in simulated callee — in virtual time where the agent runs in this process (`TestLine`),
/// unless the request says `"time": "real"` or a persona expects a turn latency. `"line"` puts the
/// calls on a simulated line: `{"noise": "babble", "snr_db": 10, "echo_db": -10, "echo_delay_ms": 150}`
/// (`LineCondition`; every field optional). The answer streams as NDJSON — `{"persona": …}` as each one ends,
/// then `{"result": …}` (or `{"error": …}`) — with an empty line every 10 s meanwhile, so a run of
/// many minutes shows progress and no idle timeout closes it.
extension VoiceBridgeServer {
    struct TestRunBody: Decodable {
        var template: String?
        var suite: String
        var parallel: Int?
        var callerNumber: String?
        /// `virtual` (the default) or `real`.
        var time: String?
        var line: Line?

        enum CodingKeys: String, CodingKey { case template, suite, parallel, callerNumber = "caller_number", time, line }

        struct Line: Decodable {
            var noise: String?
            var snrDB: Double?
            var echoDB: Double?
            var echoDelayMilliseconds: Int?

            enum CodingKeys: String, CodingKey { case noise, snrDB = "snr_db", echoDB = "echo_db", echoDelayMilliseconds = "echo_delay_ms" }

            /// The condition asked for; a field out of its range is a 422 naming it.
            func condition() throws -> LineCondition {
                do {
                    return try LineCondition(noise: try noise.map(LineCondition.noise(named:)), snrDB: snrDB ?? 10, echoDB: echoDB,
                                             echoDelayMilliseconds: echoDelayMilliseconds ?? 150)
                } catch {
                    throw ProblemDetails(.unprocessableContent, detail: "the request is not valid", errors: [.init(field: "line." + error.field, message: error.message)])
                }
            }
        }
    }

    func addTestRunRoutes(to api: RouterGroup<BasicRequestContext>) {
        api.post("tests") { request, _ -> Response in
            let body = try await Self.decodeJSONBody(request, as: TestRunBody.self, limit: 1 << 20)
            let suite: TestSuite
            do { suite = try TestSuite.parse(yaml: body.suite) } catch let problem as TestSuite.Problem {
                throw ProblemDetails(.unprocessableContent, detail: "the suite is not valid", errors: [.init(field: "suite." + problem.path, message: problem.message)])
            }
            // Each persona is a call: a run counts against api.call_creations_per_minute as the
            // calls it places would, and is refused whole (429) before any is placed.
            let identity = try self.access.identity(of: request)
            for _ in suite.personas { try await self.limiter.admit(identity) }
            guard let calls = self.calls else { throw ProblemDetails(.serviceUnavailable, detail: "this server runs without its call system") }
            guard let asked = TestLine.Time(rawValue: body.time ?? "virtual") else {
                throw ProblemDetails(.unprocessableContent, detail: "the request is not valid", errors: [.init(field: "time", message: "must be virtual or real")])
            }
            let condition = try body.line?.condition()
            let run: TestRun
            do {
                run = try TestRun(suite: suite, template: body.template, parallel: body.parallel ?? 1, callerNumber: body.callerNumber ?? "0000000000")
                _ = try await run.template(in: self.store)
            } catch let refusal as TestRun.Refusal {
                throw ProblemDetails(.unprocessableContent, detail: refusal.description)
            }
            guard let line = try await calls.testLine(time: run.measuresTurnLatency ? .real : asked, condition: condition,
                                                      script: suite.personas.flatMap(\.says)) else {
                throw ProblemDetails(.unprocessableContent,
                                     detail: "test runs call the built-in simulated callee, and this server dials sip.gateway: run them on a server without one")
            }
            let store = self.store, logger = self.logger
            return Response(status: .ok, headers: [.contentType: "application/x-ndjson"], body: .init { writer in
                let (lines, sink) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingOldest(TestSuite.maxPersonas + 16))
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        do {
                            let result = try await run.run(on: line, store: store) { persona in
                                logger.info("test run: persona done", metadata: ["suite": "\(suite.name)", "persona": "\(persona.name)", "passed": "\(persona.passed)"])
                                sink.yield(Self.line(["persona": persona]))
                            }
                            sink.yield(Self.line(["result": result]))
                        } catch {
                            sink.yield(Self.line(["error": "\(error)"]))
                        }
                        sink.finish()
                    }
                    group.addTask {
                        while !Task.isCancelled {
                            try await Task.sleep(for: .seconds(10))
                            sink.yield("")
                        }
                    }
                    for await line in lines { try await writer.write(ByteBuffer(string: line + "\n")) }
                    group.cancelAll()
                }
                try await writer.finish(nil)
            })
        }
    }

    static func line<T: Encodable>(_ object: [String: T]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? String(decoding: encoder.encode(object), as: UTF8.self)) ?? #"{"error":"unencodable"}"#
    }
}
