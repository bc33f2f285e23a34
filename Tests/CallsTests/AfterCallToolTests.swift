import Dialogue
import Egress
import Foundation
import Hummingbird
import HummingbirdWebSocket
import NIOCore
import Testing
import TestSupport
import Tools
@testable import Calls
@testable import Realtime

/// `on_end` tools: written to the outbox in the transaction that ends the call, then sent the
/// call's result with the tool's secret header, retried on 503 like a webhook, and given up on a
/// refusal (400) — every attempt stored.
@Suite(.serialized) struct AfterCallToolTests {
    @Test func anEndedCallsResultReachesItsOnEndToolsWithTheWebhooksRetryRules() async throws {
        let received = Locked<[(path: String, authorization: String?, body: String)]>([])
        let crmAnswers = Locked([503, 200])
        let tools = Router()
        tools.post(":name") { request, context -> Response in
            let body = String(buffer: try await request.body.collect(upTo: 1 << 16))
            let name = context.parameters.get("name") ?? ""
            received.withLock { $0.append((name, request.headers[.authorization], body)) }
            let status = name == "crm" ? crmAnswers.withLock { $0.count > 1 ? $0.removeFirst() : $0[0] } : 400
            return Response(status: .init(code: status), body: .init(byteBuffer: ByteBuffer(string: "{}")))
        }
        let store = try CallStore(path: StoreBackend.temporarySQLitePath())
        try await withLoopbackServer(router: tools, webSocketRouter: Router(context: BasicWebSocketRequestContext.self)) { port in
            var call = CallRecord(outboundId: CallRecord.newID(), callerNumber: "0701234", calleeNumber: "01012345678", purpose: "the delivery", questions: ["Is Thursday fine?"])
            call.tools = [
                ToolDefinition(name: "crm", description: "Writes the result to the CRM.", url: "http://127.0.0.1:\(port)/crm",
                               headers: ["Authorization": "Bearer ${secret:crm_token}"], onEnd: true),
                ToolDefinition(name: "refuser", description: "Refuses.", url: "http://127.0.0.1:\(port)/refuser", onEnd: true),
                ToolDefinition(name: "lookup", description: "A tool for the conversation.", url: "http://127.0.0.1:\(port)/lookup"),
            ]
            try await store.insert(call)
            try await store.transition(id: call.outboundId, to: .dialing)
            try await store.transition(id: call.outboundId, to: .connected)
            try await store.saveAnswers(callID: call.outboundId, answers: [
                TaskTracker.Answer(questionID: "q1", question: "Is Thursday fine?", status: .answered, answerText: "Yes", answerSummary: "yes", confidence: 1, timesAsked: 1)])
            try await store.transition(id: call.outboundId, to: .completed)
            #expect(try await store.afterCallToolRuns(callID: call.outboundId).map(\.toolName).sorted() == ["crm", "refuser"], "written with the call's end; not the conversation's tool")

            var settings = WebhookDispatcher.Settings()
            settings.policy = WebhookRetryPolicy(schedule: [0.2, 0.2], jitter: 0)
            let dispatcher = AfterCallToolDispatcher(
                store: store, runner: ToolRunner(transport: EgressToolTransport(policy: EgressPolicy(allowed: [], allowsLoopback: true)),
                                                 secrets: ToolSecrets(configured: ["crm_token": ToolSecret(value: "t0ken", hosts: ["127.0.0.1"])])),
                settings: settings, logger: .init(label: "test"))
            let running = Task { await dispatcher.run() }
            defer { running.cancel() }
            let deadline = ContinuousClock.now.advanced(by: .seconds(10))
            var runs: [AfterCallToolRun] = []
            while ContinuousClock.now < deadline {
                runs = try await store.afterCallToolRuns(callID: call.outboundId)
                if runs.allSatisfy({ $0.state != .pending }) { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            running.cancel()
            await running.value
            let crm = try #require(runs.first { $0.toolName == "crm" })
            #expect(crm.state == .delivered && crm.attemptCount == 2 && crm.lastStatus == 200, "\(crm)")
            let refuser = try #require(runs.first { $0.toolName == "refuser" })
            #expect(refuser.state == .failed && refuser.attemptCount == 1 && refuser.lastError?.contains("not retried") == true, "\(refuser)")

            let requests = received.value
            #expect(requests.filter { $0.path == "crm" }.count == 2 && requests.filter { $0.path == "refuser" }.count == 1)
            #expect(requests.first { $0.path == "crm" }?.authorization == "Bearer t0ken")
            let body = try JSONValue.parse(requests.first { $0.path == "crm" }?.body ?? "")
            #expect(body["outbound_id"]?.stringValue == call.outboundId && body["state"]?.stringValue == "completed")
            guard case .array(let answers)? = body["answers"] else { Issue.record("no answers in \(body)"); return }
            #expect(answers.first?["answer"]?.stringValue == "yes")
        }
    }
}
