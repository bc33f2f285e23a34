import Analysis
import Dialogue
import Egress
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import Testing
import TestSupport
import Tools
import TraceContext
@testable import Calls

/// A call's later work — its webhooks, its post-call analysis, its after-call tool — is sent from
/// the outboxes long after the call's tasks are gone, and still is part of the call's trace: a
/// span for each piece of work under the context the call keeps, each request a client span under
/// it, and the `traceparent` each receiver sees names that request's span.
@Suite(.serialized) struct OutboxTraceTests {
    static let kept = TraceParent("00-5b8efff798038103d269b633813fc60c-eee19b7ec3c1b174-01")!

    @Test func aCallsWebhooksAnalysisAndAfterCallToolAreSpansOfItsTrace() async throws {
        try #require(OTLPReceiver.isInstalled, "opentelemetry-proto is missing (make deps)")
        let receiver = try await OTLPReceiver()
        defer { receiver.stop() }
        let seen = Locked<[String: [String]]>([:])   // path → the traceparent of each request
        let router = Router()
        @Sendable func record(_ request: Request, _ path: String) {
            seen.withLock { $0[path, default: []].append(request.headers[HTTPField.Name(TraceParent.field)!] ?? "none") }
        }
        router.post("hooks") { request, _ -> Response in
            record(request, "hooks")
            return Response(status: .ok)
        }
        router.post("crm") { request, _ -> Response in
            record(request, "crm")
            return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "{}")))
        }
        router.post("v1/chat/completions") { request, _ -> Response in
            record(request, "chat")
            let content = #"{"data": {"attending": true}, "success": true, "reason": "confirmed", "category": "task_completed", "sentiment": "positive"}"#
            let answer = JSONValue.object(["choices": .array([.object(["message": .object(["role": .string("assistant"), "content": .string(content)])])])]).serialized
            return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: answer)))
        }
        let store = try CallStore(path: StoreBackend.temporarySQLitePath())
        let collected = Locked<[OTLPReceiver.Span]>([])
        try await withLoopbackServer(router: router, webSocketRouter: Router(context: BasicWebSocketRequestContext.self)) { port in
            try await store.webhooks.create(WebhookEndpoint(url: "http://127.0.0.1:\(port)/hooks"))
            let spec = AnalysisSpec(schema: try JSONValue.parse(#"{"type": "object", "properties": {"attending": {"type": "boolean"}}}"#), success: "the callee confirmed")
            let template = try await store.createTemplate(try CallTemplate(name: "visit", purpose: "the visit", questions: ["Is Thursday fine?"], analysis: spec)
                .validated(engineModes: ["local"]))
            var call = CallRecord(outboundId: CallRecord.newID(), callerNumber: "0701234", calleeNumber: "01012345678", purpose: "the visit", questions: ["Is Thursday fine?"])
            call.templateId = template.id
            call.templateVersion = template.version
            call.traceParent = Self.kept.value
            call.tools = [ToolDefinition(name: "crm", description: "Writes the result to the CRM.", url: "http://127.0.0.1:\(port)/crm", onEnd: true)]
            try await store.insert(call)
            try await store.transition(id: call.outboundId, to: .dialing)
            try await store.transition(id: call.outboundId, to: .connected)
            try await store.transition(id: call.outboundId, to: .completed)

            let egress = EgressPolicy(allowed: [], allowsLoopback: true)
            var hookSettings = WebhookDispatcher.Settings()
            hookSettings.egress = egress
            var analysisSettings = CallAnalysisDispatcher.Settings(VoiceBridgeConfig.Analysis(), egress: egress)
            analysisSettings.endpoint = ("http://127.0.0.1:\(port)/v1", "sk-test", "gpt-4o-mini")
            try await OTLPReceiver.withTracing(endpoint: receiver.tracesURL) { tracing in
                let logger = Logger(label: "test")
                let webhooks = WebhookDispatcher(store: store, settings: hookSettings, logger: logger, tracer: tracing.tracer)
                let analyses = CallAnalysisDispatcher(store: store, settings: analysisSettings, logger: logger, tracer: tracing.tracer)
                let tools = AfterCallToolDispatcher(store: store, runner: ToolRunner(transport: EgressToolTransport(policy: egress), secrets: ToolSecrets(configured: [:])),
                                                    settings: hookSettings, logger: logger, tracer: tracing.tracer)
                let running = Task {
                    await withDiscardingTaskGroup { group in
                        group.addTask { await webhooks.run() }
                        group.addTask { await analyses.run() }
                        group.addTask { await tools.run() }
                    }
                }
                defer { running.cancel() }
                // Two webhooks (completed, then analyzed), the analysis, the tool: each with its request.
                let spans = try await receiver.spans { spans in
                    ["webhook call.completed", "webhook call.analyzed", "call analysis", "after-call tool crm"].allSatisfy { name in spans.contains { $0.name == name } }
                        && spans.filter { $0.kind == 3 }.count >= 4
                }
                collected.withLock { $0 = spans }
            }
        }
        #expect(receiver.errors.isEmpty, "\(receiver.errors)")
        let spans = collected.value
        let work = ["webhook call.completed", "webhook call.analyzed", "call analysis", "after-call tool crm"].compactMap { name in spans.first { $0.name == name } }
        #expect(work.count == 4 && work.allSatisfy { $0.traceID == String(Self.kept.traceID) && $0.parentSpanID == String(Self.kept.parentSpanID) },
                "each piece of work under the context the call keeps: \(work)")
        #expect(work.filter { $0.name.hasPrefix("webhook") }.allSatisfy { $0.attributes["voicebridge.webhook.attempt"] as? Int == 1 })
        #expect(work.first { $0.name == "call analysis" }?.attributes["voicebridge.analysis.attempt"] as? Int == 1)
        #expect(work.first { $0.name == "after-call tool crm" }?.attributes["voicebridge.tool.attempt"] as? Int == 1)
        // Each request a client span under its work, and the receiver saw that span's traceparent.
        let requests = spans.filter { $0.kind == 3 }
        for (path, parents) in [("hooks", ["webhook call.completed", "webhook call.analyzed"]), ("chat", ["call analysis"]), ("crm", ["after-call tool crm"])] {
            let sent = seen.value[path] ?? []
            let ids = Set(parents.compactMap { name in work.first { $0.name == name }?.spanID })
            let under = requests.filter { ids.contains($0.parentSpanID) }
            #expect(under.count == parents.count && under.allSatisfy { $0.name == "POST" && $0.attributes["http.response.status_code"] as? Int == 200 },
                    "\(path): \(under)")
            #expect(Set(sent) == Set(under.map { "00-\(Self.kept.traceID)-\($0.spanID)-01" }), "\(path) saw \(sent)")
        }
    }
}
