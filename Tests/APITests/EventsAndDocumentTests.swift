import Foundation
import Pipeline
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport
import Yams
@testable import API
@testable import Calls

/// The OpenAPI document checked route by route against the server, the event types it names, and
/// `/metrics`. (The event WebSocket during a live call: `EventStreamCallTests`.)
@Suite(.serialized) struct EventsAndDocumentTests {
    /// Every route the document lists answers with a status the document lists for it.
    @Test func eachDocumentedRouteAnswersAsDocumented() async throws {
        let h = try await OutboundAPITests.harness()
        let call = CallRecord(outboundId: "ob-0000d0c5", callerNumber: "0701", calleeNumber: "0109", purpose: "p", questions: ["q"])
        try await h.store.insert(call)
        let path = (h.store.path as NSString).deletingLastPathComponent + "/doc.wav"
        _ = FileManager.default.createFile(atPath: path, contents: Data(repeating: 1, count: 64))
        try await h.store.addRecording(callID: call.outboundId, path: path, bytes: 64, durationSeconds: 0)

        let served = Locked("")
        try await h.app.test(.router) { client in
            try await client.execute(uri: "/openapi.yaml", method: .get) { response in
                #expect(response.status == .ok && response.headers[.contentType]?.hasPrefix("application/yaml") == true)
                served.withLock { $0 = String(buffer: response.body) }
            }
        }
        let document = try Yams.load(yaml: served.value) as? [String: Any] ?? [:]
        #expect(document["openapi"] as? String == "3.1.0")
        let paths = try #require(document["paths"] as? [String: Any])
        // (method, path template, documented statuses, documented 2xx content type)
        var operations: [(method: String, template: String, statuses: Set<String>, content: [String: String])] = []
        for (template, item) in paths.sorted(by: { $0.key < $1.key }) {
            for method in ["get", "post"] {
                guard let operation = (item as? [String: Any])?[method] as? [String: Any], let responses = operation["responses"] as? [String: Any] else { continue }
                var content: [String: String] = [:]
                for (status, value) in responses {
                    if let type = ((value as? [String: Any])?["content"] as? [String: Any])?.keys.first { content[status] = type }
                }
                operations.append((method, template, Set(responses.keys), content))
            }
        }
        let checked = Locked<[String]>([])
        let toCheck = operations
        try await h.app.test(.router) { client in
            for (method, template, statuses, content) in toCheck {
                let uri = template.replacingOccurrences(of: "{outbound_id}", with: call.outboundId)
                var body = ByteBuffer()
                var headers: HTTPFields = [:]
                if template == "/api/outbound/" && method == "post" {
                    body = ByteBuffer(string: OutboundAPITests.seedBody)
                    headers[.contentType] = "application/json"
                } else if template.hasPrefix("/twilio/") && method == "post" {
                    body = ByteBuffer(string: "CallSid=CA1")
                    headers[.contentType] = "application/x-www-form-urlencoded"
                }
                try await client.execute(uri: uri, method: method == "get" ? .get : .post, headers: headers, body: body) { response in
                    let status = String(response.status.code)
                    #expect(statuses.contains(status), "\(method.uppercased()) \(template) answered \(status), documented: \(statuses.sorted())")
                    if statuses.contains("101") {   // a WebSocket route, asked without an Upgrade
                        #expect(status == "426" && response.headers[.upgrade] == "websocket", "plain GET \(template) answered \(status)")
                    }
                    if let documented = content[status] {
                        let type = response.headers[.contentType] ?? ""
                        #expect(type.hasPrefix(documented), "\(method.uppercased()) \(template): \(type), documented \(documented)")
                    }
                }
                checked.withLock { $0.append("\(method.uppercased()) \(template)") }
            }
        }
        let checkedValue = checked.value
        #expect(checkedValue.count >= 16, "\(checkedValue)")
        // And the other way round: the API's routes are all documented.
        for route in ["/api/outbound/", "/api/outbound/active", "/api/outbound/stats", "/api/outbound/{outbound_id}", "/api/outbound/{outbound_id}/result",
                      "/api/outbound/{outbound_id}/recording", "/api/outbound/{outbound_id}/listen", "/api/outbound/{outbound_id}/cancel", "/api/outbound/{outbound_id}/retry", "/api/events", "/metrics",
                      "/api/dnc", "/api/dnc/import", "/api/dnc/{number}", "/api/templates", "/api/tests", "/api/templates/{template_id}", "/api/templates/{template_id}/versions",
                      "/api/campaigns", "/api/campaigns/{campaign_id}", "/api/campaigns/{campaign_id}/contacts", "/api/campaigns/{campaign_id}/start",
                      "/api/campaigns/{campaign_id}/results.csv", "/api/stats", "/api/webhooks", "/api/webhooks/{webhook_id}",
                      "/api/webhooks/{webhook_id}/deliveries", "/api/webhooks/{webhook_id}/deliveries/{delivery_id}/replay"] {
            #expect(paths[route] != nil, "\(route) is documented")
        }
    }

    /// The document's `Event.type` names every type the stream sends: each state a call can reach,
    /// in either direction, as the stream renames it, and the other events the server writes.
    /// (It once listed 12 of the 22: no voicemail, no analysis, no inbound cancel.)
    @Test func everyEventTypeTheStreamSendsIsDocumented() throws {
        let url = Fixtures.repository.appendingPathComponent("Sources/API/openapi.yaml")
        let document = try Yams.load(yaml: String(contentsOf: url, encoding: .utf8)) as? [String: Any] ?? [:]
        let schemas = (document["components"] as? [String: Any])?["schemas"] as? [String: Any]
        let type = ((schemas?["Event"] as? [String: Any])?["properties"] as? [String: Any])?["type"] as? [String: Any]
        let documented = Set(try #require(type?["enum"] as? [String]))
        var stored = CallState.allCases.map { "outbound_\($0.rawValue)" }
        stored += [CallState.connected, .completed, .failed, .cancelled].map { "inbound_\($0.rawValue)" }   // an inbound call is answered when stored
        stored += ["outbound_progress", "transcript", "outbound_analyzed", "inbound_analyzed", "answered_by",
                   "twilio_call_status", "twilio_transfer_status", "twilio_stream_status", "listening_started", "listening_stopped"]
        var sent = Set(stored.map { EventStream.wireType(of: $0, payload: [:]) })
        sent.insert(EventStream.wireType(of: "outbound_completed", payload: ["reason": "remote_hangup"]))
        // A dead line is announced as a callee's hang-up is: a call the agent did not end.
        #expect(EventStream.wireType(of: "outbound_completed", payload: ["reason": "media_timeout"]) == "outbound_ended")
        #expect(sent.subtracting(documented).isEmpty, "sent but not in openapi.yaml's Event.type: \(sent.subtracting(documented).sorted())")
        #expect(documented.subtracting(sent).isEmpty, "documented but never sent: \(documented.subtracting(sent).sorted())")
    }

    @Test(arguments: StoreBackend.allCases) func metricsExposeCallsByStateAndTheCallSystemsCounters(database: StoreBackend) async throws {
        let h = try await OutboundAPITests.harness(database: database)
        _ = try await BlockingWorkPool(label: "voicebridge.metrics-test", width: 1, capacity: 1).run { 1 }   // an inference pool's job
        try await h.app.test(.router) { client in
            try await client.execute(uri: "/api/outbound/", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: OutboundAPITests.seedBody)) { _ in }
            try await client.execute(uri: "/metrics", method: .get) { response in
                let text = String(buffer: response.body)
                #expect(response.status == .ok && response.headers[.contentType]?.hasPrefix("text/plain") == true)
                #expect(text.contains(#"voicebridge_calls{state="queued"} 1"#), "\(text)")
                #expect(text.contains(#"voicebridge_calls{state="completed"} 0"#))
                #expect(text.contains("voicebridge_live_calls 0"))
                #expect(text.contains("voicebridge_media_late_frames") && text.contains("voicebridge_media_audibly_late_frames"))
                #expect(text.contains(#"voicebridge_inference_jobs_total{pool="metrics-test"}"#) && text.contains(#"voicebridge_inference_cpu_seconds_total{pool="metrics-test"}"#),
                        "the inference pools' CPU: \(text)")
            }
        }
        // What calls report goes through the server's registry.
        let metrics = VoiceBridgeServer.callMetrics(registry: h.server.metricsRegistry)
        metrics.turnLatency.recordMilliseconds(640)
        metrics.engineErrors.increment()
        metrics.pipelineDrops.increment(by: 3)
        try await h.app.test(.router) { client in
            try await client.execute(uri: "/metrics", method: .get) { response in
                let text = String(buffer: response.body)
                #expect(text.contains(#"voicebridge_turn_latency_seconds_bucket{le="0.75"} 1"#), "\(text)")
                #expect(text.contains(#"voicebridge_turn_latency_seconds_bucket{le="0.5"} 0"#))
                #expect(text.contains("voicebridge_engine_errors_total 1") && text.contains("voicebridge_pipeline_dropped_frames_total 3"))
            }
        }
    }

    @Test func metricsShowTheLocalEnginesLimitAndHeadroom() async throws {
        let h = try await OutboundAPITests.harness(engine: .local)
        try await h.app.test(.router) { client in
            try await client.execute(uri: "/metrics", method: .get) { response in
                let text = String(buffer: response.body)
                // Two and a half calls a core to start with (engine.local.turn_latency_goal_ms moves it).
                let start = VoiceBridgeConfig.Engine.Local().admission().start
                #expect(text.contains("voicebridge_engine_call_limit \(start)") && text.contains("voicebridge_engine_headroom_calls \(start)"), "\(text)")
                #expect(!text.contains("voicebridge_engine_recent_turn_latency_seconds"), "no turn measured yet")
            }
        }
    }
}
