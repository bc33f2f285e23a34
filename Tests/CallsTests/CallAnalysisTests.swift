import Analysis
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

/// Post-call analysis from the outbox written when a call completes: the model's structured
/// answer (a fake Chat Completions server speaking the documented format) stored and announced as
/// `call.analyzed`; a model that keeps failing gives way to the offline analysis, saying why — an
/// answer that does not fit is asked for once more, then given up on; with no model the offline
/// analysis is stored at once.
@Suite(.serialized) struct CallAnalysisTests {
    static let spec = AnalysisSpec(schema: try! JSONValue.parse(#"{"type": "object", "properties": {"attending": {"type": "boolean"}, "day": {"type": "string"}}}"#),
                                   success: "the callee confirmed the visit")

    /// A completed call made from a template with `analysis`, its answer and transcript stored.
    static func completedCall(_ store: CallStore, _ n: Int, analysis: AnalysisSpec? = spec) async throws -> String {
        let template = try await store.createTemplate(try CallTemplate(name: "visit \(n)", purpose: "the visit", questions: ["Is Thursday fine?"], analysis: analysis)
            .validated(engineModes: ["local"]))
        var call = CallRecord(outboundId: CallRecord.newID(), callerNumber: "0701234", calleeNumber: "0101234567\(n)", purpose: "the visit", questions: ["Is Thursday fine?"])
        call.templateId = template.id
        call.templateVersion = template.version
        try await store.insert(call)
        try await store.transition(id: call.outboundId, to: .dialing)
        try await store.transition(id: call.outboundId, to: .connected)
        try await store.appendTranscript(callID: call.outboundId, seconds: 1, speaker: .ai, text: "Is Thursday fine?")
        try await store.appendTranscript(callID: call.outboundId, seconds: 3, speaker: .customer, text: "Yes, Thursday is great, thank you.")
        try await store.saveAnswers(callID: call.outboundId, answers: [
            TaskTracker.Answer(questionID: "q1", question: "Is Thursday fine?", status: .answered, answerText: "Yes", answerSummary: "yes", confidence: 1, timesAsked: 1)])
        let id = call.outboundId
        try await store.sqlWrite { try $0.execute("UPDATE calls SET task_completed = ? WHERE outbound_id = ?", true, id) }
        try await store.transition(id: call.outboundId, to: .completed)
        return call.outboundId
    }

    static func dispatcher(_ store: CallStore, port: Int?, schedule: [TimeInterval] = [0.2]) -> CallAnalysisDispatcher {
        var settings = CallAnalysisDispatcher.Settings(VoiceBridgeConfig.Analysis(), egress: EgressPolicy(allowed: [], allowsLoopback: true))
        settings.endpoint = port.map { ("http://127.0.0.1:\($0)/v1", "sk-test", "gpt-4o-mini") }
        settings.policy = WebhookRetryPolicy(schedule: schedule, jitter: 0)
        return CallAnalysisDispatcher(store: store, settings: settings, logger: .init(label: "test"))
    }

    /// Runs `dispatcher` until every job of `calls` ran to its end (10 s at most: then it says
    /// which jobs were still pending, and after how many attempts).
    static func drain(_ dispatcher: CallAnalysisDispatcher, _ store: CallStore, _ calls: [String]) async throws {
        let running = Task { await dispatcher.run() }
        let deadline = ContinuousClock.now.advanced(by: .seconds(10))
        var pending: [String] = []
        repeat {
            pending = []
            for id in calls {
                if let job = try await store.analysisJob(callID: id), job.state == .pending { pending.append("\(id) after \(job.attemptCount) attempts") }
            }
            if pending.isEmpty { break }
            // A job leaves `pending` with its analysis stored, in the transaction that announces
            // it (`<direction>_analyzed`): that event wakes this.
            await store.waitForEvents(timeout: .seconds(1))
        } while ContinuousClock.now < deadline
        running.cancel()
        await running.value
        if !pending.isEmpty { Issue.record("analysis jobs still pending after 10 s: \(pending.joined(separator: ", "))") }
    }

    @Test func theModelsAnalysisIsStoredAndAnnouncedAndAFailingModelGivesWayToTheOfflineOne() async throws {
        let requests = Locked<[(authorization: String?, body: String)]>([])
        // The first call: one failure, then an answer; the second: failures only; the third: two answers that do not fit.
        let answers = Locked([(500, ""), (200, "good"), (503, ""), (503, ""), (200, "Sure! Here is the analysis."), (200, #"{"success": "yes"}"#)])
        let router = Router()
        router.post("v1/chat/completions") { request, _ -> Response in
            let body = String(buffer: try await request.body.collect(upTo: 1 << 20))
            requests.withLock { $0.append((request.headers[.authorization], body)) }
            let (status, script) = answers.withLock { $0.isEmpty ? (503, "") : $0.removeFirst() }
            let content = script != "good" ? script
                : #"{"data": {"attending": true, "day": null}, "success": true, "reason": "confirmed Thursday", "category": "task_completed", "sentiment": "positive"}"#
            let answer = JSONValue.object(["choices": .array([.object(["message": .object(["role": .string("assistant"), "content": .string(content)])])])]).serialized
            return Response(status: .init(code: status), body: .init(byteBuffer: ByteBuffer(string: status == 200 ? answer : #"{"error": {"message": "overloaded"}}"#)))
        }
        let store = try CallStore(path: StoreBackend.temporarySQLitePath())
        try await store.webhooks.create(WebhookEndpoint(url: "http://127.0.0.1:9/all"))
        try await withLoopbackServer(router: router, webSocketRouter: Router(context: BasicWebSocketRequestContext.self)) { port in
            let first = try await Self.completedCall(store, 1)
            #expect(try await store.analysisJob(callID: first)?.state == .pending, "written with the call's completion")
            try await Self.drain(Self.dispatcher(store, port: port), store, [first])
            let second = try await Self.completedCall(store, 2)
            try await Self.drain(Self.dispatcher(store, port: port), store, [second])

            let analysed = try #require(try await store.analysis(callID: first))
            #expect(analysed == CallAnalysis(method: .llm, data: .object(["attending": .bool(true), "day": .null]), success: true, reason: "confirmed Thursday",
                                             sentiment: .positive, category: "task_completed"))
            #expect(try await store.analysisJob(callID: first).map { ($0.state, $0.attemptCount) } ?? (.pending, 0) == (.delivered, 2))
            let request = try #require(requests.value.first)
            #expect(request.authorization == "Bearer sk-test")
            let body = try JSONValue.parse(request.body)
            #expect(body["model"]?.stringValue == "gpt-4o-mini" && body["response_format"]?["type"]?.stringValue == "json_schema")
            #expect(request.body.contains("Callee: Yes, Thursday is great, thank you."))
            let announced = try await store.webhooks.deliveries(callID: first).map(\.eventType)
            #expect(announced.sorted() == ["call.analyzed", "call.completed"])

            let fallback = try #require(try await store.analysis(callID: second))
            #expect(fallback.method == .offline && fallback.llmError == "the model answered 503" && fallback.success, "\(fallback)")
            #expect(fallback.data == .object(["attending": .null, "day": .null]) && fallback.sentiment == .positive,
                    "offline, a property is filled only from a field or answer of its name (this call's answer is q1)")
            #expect(try await store.analysisJob(callID: second).map { ($0.state, $0.attemptCount) } ?? (.pending, 0) == (.failed, 2))
            #expect(try await store.webhooks.deliveries(callID: second).map(\.eventType).contains("call.analyzed"))

            let third = try await Self.completedCall(store, 4)
            // A schedule with room for more attempts: the answers that do not fit stop it after two.
            try await Self.drain(Self.dispatcher(store, port: port, schedule: [0.2, 0.2, 0.2]), store, [third])
            let unfit = try #require(try await store.analysis(callID: third))
            #expect(unfit.method == .offline && unfit.llmError?.hasPrefix("malformed analysis: the analysis does not fit its schema") == true, "\(unfit)")
            #expect(try await store.analysisJob(callID: third).map { ($0.state, $0.attemptCount) } ?? (.pending, 0) == (.failed, 2), "asked once more, then given up")
            #expect(requests.value.count == 6)
        }
    }

    @Test func withoutAModelTheOfflineAnalysisIsStoredAtOnce() async throws {
        let store = try CallStore(path: StoreBackend.temporarySQLitePath(), cipher: StorageCipher(currentKey: StorageEncryptionTests.keyA))
        let id = try await Self.completedCall(store, 3)
        try await Self.drain(Self.dispatcher(store, port: nil), store, [id])
        let analysis = try #require(try await store.analysis(callID: id))
        #expect(analysis.method == .offline && analysis.llmError == nil && analysis.reason == "1 of 1 questions answered" && analysis.category == "task_completed")
        #expect(try await store.sqlRead { try $0.scalar(String.self, "SELECT analysis FROM calls WHERE outbound_id = ?", [.text(id)]) }?.contains("task_completed") == false,
                "sealed at rest")
        let plain = try await Self.completedCall(store, 5, analysis: nil)
        #expect(try await store.analysisJob(callID: plain) == nil, "a template without analysis writes no job")
    }
}
