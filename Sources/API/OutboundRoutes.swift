import Analysis
import Calls
import Foundation
import HTTPTypes
import Hummingbird
import Realtime
import TraceContext

/// Seed 000 §6: the outbound call REST API under `/api/outbound`.
extension VoiceBridgeServer {
    func addOutboundRoutes(to api: RouterGroup<BasicRequestContext>, limiter: CreationRateLimiter, access: APIAccess) {
        let outbound = api.group("outbound")
        outbound.post { request, context -> EditedResponse<CreatedCall> in
            let manager = try self.manager()
            try await limiter.admit(try access.identity(of: request))
            let body = try await Self.decodeJSONBody(request, as: CreateCallBody.self)
            let call = try await manager.create(body.request, requestedBy: "api", traceParent: Self.traceParent(of: request))
            return EditedResponse(status: .accepted, headers: [.location: "/api/outbound/\(call.outboundId)"],
                                  response: CreatedCall(outboundId: call.outboundId, state: call.state.rawValue, createdAt: call.createdAt,
                                                        message: "The call was queued."))
        }
        outbound.get { request, _ -> CallPage in
            let query = request.uri.queryParameters
            var problems: [ProblemDetails.InvalidField] = []
            var states: [CallState]?
            if let raw = query.get("state"), !raw.isEmpty {
                let parsed = raw.split(separator: ",").map { CallState(rawValue: String($0)) }
                if parsed.contains(where: { $0 == nil }) {
                    problems.append(.init(field: "state", message: "must be one or more of \(CallState.allCases.map(\.rawValue).joined(separator: ", ")), comma-separated"))
                }
                states = parsed.compactMap { $0 }
            }
            let (limit, offset) = Self.pageParameters(query, problems: &problems)
            guard problems.isEmpty else { throw ProblemDetails(.unprocessableContent, detail: "invalid query parameters", errors: problems) }
            let page = try await self.store.page(states: states, search: query.get("q"), limit: limit, offset: offset)
            return CallPage(items: page.calls.map { CallView($0, masked: true) }, total: page.total, limit: limit, offset: offset)
        }
        outbound.get("active") { _, _ -> CallPage in
            let page = try await self.store.page(states: [.queued, .dialing, .ringing, .connected], limit: 200)
            return CallPage(items: page.calls.map { CallView($0, masked: true) }, total: page.total, limit: 200, offset: 0)
        }
        outbound.get("stats") { _, _ -> CallStats in
            let s = try await self.store.stats()
            let count = { (states: [CallState]) in states.reduce(0) { $0 + (s.byState[$1] ?? 0) } }
            let ended = count(CallState.allCases.filter(\.isTerminal))
            return CallStats(total: count(CallState.allCases), completed: count([.completed]), inProgress: count([.dialing, .ringing, .connected]),
                             queued: count([.queued]), noAnswer: count([.noAnswer]), busy: count([.busy]), failed: count([.failed, .rejected]),
                             successRate: ended == 0 ? 0 : (Double(s.tasksCompleted) * 1000 / Double(ended)).rounded() / 10,
                             averageDurationSeconds: (s.averageDurationSeconds * 10).rounded() / 10,
                             reports: .init(s.reports))
        }
        outbound.get(":id") { _, context -> CallView in
            let call = try await self.call(context)
            let timeline = try await self.store.events(callID: call.outboundId).compactMap { event -> CallView.TimelineEntry? in
                guard let state = Self.state(ofEventType: event.type) else { return nil }
                let payload = (try? JSONSerialization.jsonObject(with: Data(event.payload.utf8))) as? [String: String]
                return .init(state: state.rawValue, at: event.createdAt, reason: payload?["reason"])
            }
            let attempts = try await self.store.attempts(callID: call.outboundId).map(CallView.Attempt.init)
            let webhooks = try await self.deliveryViews(try await self.store.webhooks.deliveries(callID: call.outboundId))
            return CallView(call, masked: false, timeline: timeline, attempts: attempts, webhooks: webhooks,
                            afterCallTools: try await self.store.afterCallToolRuns(callID: call.outboundId))
        }
        outbound.get(":id/result") { _, context -> CallResultView in
            let call = try await self.call(context)
            var answers = try await self.store.answers(callID: call.outboundId)
            if answers.isEmpty {
                answers = call.questions.enumerated().map { .init(questionID: "q\($0.offset + 1)", question: $0.element, status: .notAsked, answerText: nil,
                                                                   answerSummary: nil, confidence: 0, timesAsked: 0) }
            }
            let transcript = try await self.store.transcript(callID: call.outboundId)
            let hasRecording = try await self.store.recordingPath(callID: call.outboundId) != nil
            let flow = try CallFlowResult(stored: call.flowResult)
            return CallResultView(
                outboundId: call.outboundId, state: call.state.rawValue, callerNumber: call.callerNumber, calleeNumber: call.calleeNumber,
                purpose: call.purpose, durationSeconds: call.durationSeconds, taskCompleted: call.taskCompleted,
                answers: answers.map { .init(questionId: $0.questionID, questionText: $0.question, status: $0.status.rawValue, answerText: $0.answerText,
                                             answerSummary: $0.answerSummary, confidence: $0.confidence) },
                summary: call.summary, outcome: call.outcome, flowPath: flow?.path, fields: flow?.typedFields, languagesSpoken: call.languagesSpoken,
                analysis: try call.analysis.map { try JSONDecoder().decode(CallAnalysis.self, from: Data($0.utf8)) },
                transcript: transcript.map { .init(timestamp: $0.entry.timestamp, speaker: $0.entry.speaker.rawValue, text: $0.entry.text, latencyMs: $0.latencyMilliseconds) },
                aiTurns: call.aiTurns, customerTurns: call.customerTurns,
                recordingURL: hasRecording ? "/api/outbound/\(call.outboundId)/recording" : nil,
                createdAt: call.createdAt, answeredAt: call.answeredAt, completedAt: call.completedAt)
        }
        outbound.get(":id/report") { _, context -> CallReportView in
            let call = try await self.call(context)
            if let live = await self.calls?.manager.liveReport(id: call.outboundId) {
                return CallReportView(outboundId: call.outboundId, live: true, report: live)
            }
            let stored = try await self.store.report(callID: call.outboundId) ?? CallReport()
            return CallReportView(outboundId: call.outboundId, live: false, report: stored)
        }
        outbound.get(":id/recording") { request, context -> Response in
            let call = try await self.call(context)
            guard let recording = try await self.store.recording(callID: call.outboundId) else {
                throw ProblemDetails(.notFound, detail: "call \(call.outboundId) has no recording")
            }
            return try RecordingResponse.make(recording, range: request.headers[.range])
        }
        outbound.post(":id/cancel") { _, context -> CallView in
            let manager = try self.manager()
            let call = try await self.call(context)
            try await manager.cancel(id: call.outboundId)
            return CallView(try await self.store.call(id: call.outboundId) ?? call, masked: false)
        }
        outbound.post(":id/retry") { request, context -> EditedResponse<CallView> in
            try await limiter.admit(try access.identity(of: request))   // a retry is a new dial: it counts
            let manager = try self.manager()
            let call = try await self.call(context)
            let queued = try await manager.retry(id: call.outboundId)
            return EditedResponse(status: .accepted, response: CallView(queued, masked: false))
        }
    }

    func manager() throws -> CallManager {
        guard let calls else { throw ProblemDetails(.serviceUnavailable, detail: "this server runs without its call system") }
        return calls.manager
    }

    func call(_ context: BasicRequestContext) async throws -> CallRecord {
        let id = context.parameters.get("id") ?? ""
        guard let call = try await store.call(id: id) else { throw ProblemDetails(.notFound, detail: "no call with id \(id)") }
        return call
    }

    /// `limit` (1–200, default 50) and `offset` (0 or more) of a list request; bad values join `problems`.
    static func pageParameters(_ query: Parameters, problems: inout [ProblemDetails.InvalidField]) -> (limit: Int, offset: Int) {
        let limit = query.get("limit").map { Int($0) ?? -1 } ?? 50
        let offset = query.get("offset").map { Int($0) ?? -1 } ?? 0
        if !(1...200).contains(limit) { problems.append(.init(field: "limit", message: "must be a whole number from 1 to 200")) }
        if offset < 0 { problems.append(.init(field: "offset", message: "must be a whole number, 0 or more")) }
        return (limit, offset)
    }

    /// The state an event type announces (`outbound_ringing` → ringing), if it is a state change.
    static func state(ofEventType type: String) -> CallState? {
        for prefix in ["outbound_", "inbound_"] where type.hasPrefix(prefix) {
            return CallState(rawValue: String(type.dropFirst(prefix.count)))
        }
        return nil
    }

    /// Bad JSON and wrong types become problem+json naming the field; missing and invalid values
    /// are left to the request's own validation, which reports all of them at once.
    static func decodeJSONBody<Body: Decodable>(_ request: Request, as: Body.Type, limit: Int = 64 * 1024) async throws -> Body {
        let buffer = try await request.body.collect(upTo: limit)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        do {
            return try decoder.decode(Body.self, from: Data(buffer.readableBytesView))
        } catch DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context) {
            let field = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
            throw ProblemDetails(.unprocessableContent, detail: "a field has the wrong type",
                                 errors: [.init(field: field, message: context.debugDescription)])
        } catch DecodingError.dataCorrupted(let context) where !context.codingPath.isEmpty {
            let field = context.codingPath.map(\.stringValue).joined(separator: ".")
            throw ProblemDetails(.unprocessableContent, detail: "a field has an invalid value", errors: [.init(field: field, message: "is not valid (dates are ISO 8601)")])
        } catch {
            throw ProblemDetails(.badRequest, detail: "the body is not a JSON object")
        }
    }
}

extension VoiceBridgeServer {
    /// The request's own trace, which a traced call joins: its one `traceparent` header, if it has
    /// the header's shape. W3C Trace Context asks a receiver to ignore a malformed one (or two of
    /// them) and start a trace of its own, not to refuse the request.
    static func traceParent(of request: Request) -> TraceParent? {
        guard let name = HTTPField.Name(TraceParent.field) else { return nil }
        let values = request.headers[values: name]
        guard values.count == 1 else { return nil }
        return TraceParent(values[0])
    }
}
