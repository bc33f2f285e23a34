import Calls
import Foundation
import Hummingbird
import NIOCore
import TestRuns

/// `POST /api/tests`: runs a test suite (YAML) against a template, every persona a real call to the
/// built-in simulated callee. The answer streams as NDJSON — `{"persona": …}` as each one ends,
/// then `{"result": …}` (or `{"error": …}`) — with an empty line every 10 s meanwhile, so a run of
/// many minutes shows progress and no idle timeout closes it.
extension VoiceBridgeServer {
    struct TestRunBody: Decodable {
        var template: String?
        var suite: String
        var parallel: Int?
        var callerNumber: String?

        enum CodingKeys: String, CodingKey { case template, suite, parallel, callerNumber = "caller_number" }
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
            let manager = try self.manager()
            let run: TestRun
            do {
                run = try TestRun(suite: suite, template: body.template, parallel: body.parallel ?? 1, callerNumber: body.callerNumber ?? "0000000000")
                _ = try await run.template(manager: manager, store: self.store)
            } catch let refusal as TestRun.Refusal {
                throw ProblemDetails(.unprocessableContent, detail: refusal.description)
            }
            let store = self.store, logger = self.logger
            return Response(status: .ok, headers: [.contentType: "application/x-ndjson"], body: .init { writer in
                let (lines, sink) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingOldest(TestSuite.maxPersonas + 16))
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        do {
                            let result = try await run.run(manager: manager, store: store) { persona in
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
