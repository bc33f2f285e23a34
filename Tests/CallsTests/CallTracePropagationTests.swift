import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import MetricsTestKit
import NIOCore
import Testing
import TestSupport
import Tools
import TraceContext
@testable import Calls

/// W3C Trace Context out and in: a call placed with a `traceparent` joins that trace, and every
/// request the call makes — the model, the voice, the operator's tool, each a client span of its
/// own — carries the call's trace, so the services it reaches join the trace too. The cascade engine against the fake
/// OpenAI and Deepgram servers, the tool on a loopback server, the spans through the server's OTLP exporter.
@Suite(.serialized, .enabled(if: CallHarness.speech != nil)) struct CallTracePropagationTests {
    static let received = TraceParent("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")!

    /// Speech-to-text is Deepgram's here: its WebSocket opens with the call (OpenAI's would be
    /// asked only once the caller speaks, and in this script the call ends first).
    @Test func aCallJoinsTheRequestsTraceAndItsRequestsCarryIt() async throws {
        try #require(OTLPReceiver.isInstalled, "opentelemetry-proto is missing (make deps)")
        let receiver = try await OTLPReceiver()
        defer { receiver.stop() }
        let toolSaw = Locked<[String]>([])
        let tool = Router()
        tool.get("slots") { request, _ -> Response in
            toolSaw.withLock { $0.append(request.headers[HTTPField.Name(TraceParent.field)!] ?? "none") }
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: #"{"free":["10:30"]}"#)))
        }
        let log = FakeCascadeServers.Log()
        let stored = Locked<String?>(nil)
        let spans = try await OTLPReceiver.withTracing(endpoint: receiver.tracesURL) { tracing in
            try await withLoopbackServer(router: tool, webSocketRouter: Router(context: BasicWebSocketRequestContext.self)) { toolPort in
                try await FakeCascadeServers.withFakeServers(log, chat: ToolCallTests.chat) { port in
                    var config = ToolCallTests.cascade(port: port)
                    config.engine.cascade.stt = .deepgram
                    config.engine.deepgram.apiKey = "dg-test"
                    config.engine.deepgram.baseURL = "ws://127.0.0.1:\(port)/v1"
                    let engines = try CallSystem.engines(for: config.engine, egress: config.egressPolicy,
                                                         tools: CallSystem.toolRunner(config: config, metrics: CallMetrics(factory: TestMetrics())))
                    try await CallHarness.run(tweak: { $0.engineMode = "cascade"; $0.tracer = tracing.tracer }, engines: engines) { manager, store, _ in
                        let slots = ToolDefinition(name: "free_slots", description: "The free appointment times on a day.",
                                                   parameters: try JSONValue.parse(#"{"type":"object","properties":{"day":{"type":"string"}},"required":["day"]}"#),
                                                   url: "http://127.0.0.1:\(toolPort)/slots", method: "GET")
                        var template = CallTemplate(name: "clinic", purpose: "your appointment", questions: ["Which time suits you?"])
                        template.tools = [slots]
                        template = try await store.createTemplate(try await manager.acceptable(template))
                        var request = CallHarness.seedRequest()
                        request.template = template.id
                        let id = try await manager.create(request, traceParent: Self.received).outboundId
                        let call = try await CallHarness.waitFor(store, id, timeout: .seconds(60)) { $0.state.isTerminal }
                        #expect(call.state == .completed, "\(call.state) \(call.failureReason ?? "")")
                        stored.withLock { $0 = call.traceParent }
                    }
                }
            }
            // Until the call's spans and every span a model or voice request named are in.
            let named = (log.all("traceparent chat") + log.all("traceparent speech")).compactMap { TraceParent(String($0.split(separator: " ").last ?? "")) }
            return try await receiver.spans { spans in
                ["call", "call queued", "GET", "execute_tool free_slots"].allSatisfy { name in spans.contains { $0.name == name } }
                    && named.allSatisfy { trace in spans.contains { $0.spanID == String(trace.parentSpanID) } }
            }
        }
        #expect(receiver.errors.isEmpty, "\(receiver.errors)")
        let queued = try #require(spans.first { $0.name == "call queued" })
        let call = try #require(spans.first { $0.name == "call" })
        #expect(Set(spans.map(\.traceID)) == [String(Self.received.traceID)], "every span in the request's trace")
        #expect(queued.parentSpanID == String(Self.received.parentSpanID) && call.parentSpanID == queued.spanID,
                "the request's span → call queued → call: \(queued) \(call)")
        #expect(stored.value.flatMap(TraceParent.init)?.parentSpanID == Substring(queued.spanID), "the call keeps its queued span's context")

        let underCall = "00-\(Self.received.traceID)-\(call.spanID)-01"
        // The tool call (GenAI conventions), and under it its request through the egress client, a
        // client span of its own.
        let toolCall = try #require(spans.first { $0.name == "execute_tool free_slots" })
        #expect(toolCall.parentSpanID == call.spanID && toolCall.start >= call.start && toolCall.end <= call.end, "\(toolCall)")
        #expect(toolCall.attributes["gen_ai.tool.name"] as? String == "free_slots" && toolCall.attributes["voicebridge.tool.status"] as? String == "ok",
                "\(toolCall.attributes)")
        let request = try #require(spans.first { $0.name == "GET" })
        #expect(request.parentSpanID == toolCall.spanID && request.start >= toolCall.start && request.end <= toolCall.end, "\(request)")
        #expect(request.attributes["http.request.method"] as? String == "GET" && request.attributes["server.address"] as? String == "127.0.0.1"
                && request.attributes["http.response.status_code"] as? Int == 200, "\(request.attributes)")
        #expect(!request.attributes.values.contains { "\($0)".contains("slots") || "\($0)".contains("2026") }, "no path, no query: \(request.attributes)")
        #expect(toolSaw.value == ["00-\(Self.received.traceID)-\(request.spanID)-01"], "the tool's request names its own span")
        // The model's and the voice's requests: each names its own client span, under the call —
        // the model's as GenAI's conventions name it.
        let byID = Dictionary(spans.map { ($0.spanID, $0) }, uniquingKeysWith: { first, _ in first })
        func requestSpans(_ service: String) -> [OTLPReceiver.Span?] {
            log.all("traceparent \(service)").map { line in TraceParent(String(line.split(separator: " ").last ?? "")).flatMap { byID[String($0.parentSpanID)] } }
        }
        let chat = requestSpans("chat"), speech = requestSpans("speech")
        #expect(chat.count >= 2 && chat.allSatisfy { span in
            span.map { $0.name.hasPrefix("chat ") && $0.kind == 3 && $0.parentSpanID == call.spanID && $0.attributes["gen_ai.operation.name"] as? String == "chat"
                && $0.attributes["http.response.status_code"] as? Int == 200 && $0.start >= call.start && $0.end <= call.end } == true
        }, "\(log.all("traceparent chat")) \(chat)")
        #expect(!speech.isEmpty && speech.allSatisfy { span in
            span.map { $0.name == "POST" && $0.kind == 3 && $0.parentSpanID == call.spanID && $0.attributes["voicebridge.engine.request"] as? String == "speech" } == true
        }, "\(log.all("traceparent speech")) \(speech)")
        let heard = log.all("traceparent deepgram")
        #expect(heard == ["traceparent deepgram \(underCall)"], "the transcriber's WebSocket upgrade: \(heard)")
    }

    /// The header's shape, as the specification writes it; anything else is not carried.
    @Test func onlyAWellFormedTraceparentIsTaken() {
        #expect(Self.received.traceID == "0af7651916cd43dd8448eb211c80319c" && Self.received.parentSpanID == "b7ad6b7169203331")
        for malformed in ["", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-0",        // short
                          "00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01",         // upper case
                          "00_0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",         // not a dash
                          "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01\r\nx: y", // a second header smuggled
                          "00-0af7651916cd43dd8448eb211c8031-9cb7ad6b7169203331-01"] {       // dashes misplaced
            #expect(TraceParent(malformed) == nil, "\(malformed)")
        }
    }
}
