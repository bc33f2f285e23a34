import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
import TestSupport
@testable import API
@testable import Calls

/// The REST API through the in-process client, with a real store and call manager that is not
/// dialing (calls stay queued unless a test moves them), so every answer is deterministic.
@Suite(.serialized) struct OutboundAPITests {
    struct Harness {
        let server: VoiceBridgeServer
        let store: CallStore
        let app: Application<RouterResponder<BasicRequestContext>>
    }

    /// The server's routes on the in-process client, over a new store on `database`.
    static func harness(tokens: [String] = [], perMinute: Int = 30, database: StoreBackend = .sqlite, engine: VoiceBridgeConfig.EngineMode = .echo,
                        tweak: (inout VoiceBridgeConfig) -> Void = { _ in }) async throws -> Harness {
        var config = try await TwilioStreamTests.config(database: database)
        config.engine.mode = engine
        tweak(&config)
        config.api.tokens = tokens
        config.api.callCreationsPerMinute = perMinute
        let store = try await CallStore.open(config.database.location)
        try #require((store.shared.database is PostgresStoreDatabase) == (database == .postgres), "the harness opened the wrong database")
        let calls = try await CallSystem.start(config: config, store: store, logger: Logger(label: "test"))
        let server = VoiceBridgeServer(config: config, store: store, logger: Logger(label: "test"), calls: calls)
        return Harness(server: server, store: store, app: Application(router: server.router()))
    }

    static let seedBody = #"{"caller_number":"070-1234-5678","callee_number":"010-9876-5432","purpose":"내일 오후 2시 미팅 일정 확인","questions":["참석 가능 여부","장소 변경 필요 여부"],"caller_display_name":"ABC 주식회사","max_duration":180,"retry_on_no_answer":true}"#

    static func json(_ buffer: ByteBuffer) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(buffer.readableBytesView))) as? [String: Any] ?? [:]
    }

    @Test(arguments: StoreBackend.allCases) func createListDetailCancelRetry(database: StoreBackend) async throws {
        let h = try await Self.harness(database: database)
        try await h.app.test(.router) { client in
            var id = ""
            try await client.execute(uri: "/api/outbound/", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: Self.seedBody)) { response in
                #expect(response.status == .accepted)
                let body = Self.json(response.body)
                id = body["outbound_id"] as? String ?? ""
                #expect(id.wholeMatch(of: /ob-[0-9a-f]{8}/) != nil, "outbound_id is ob- and 8 hex: \(id)")
                #expect(body["state"] as? String == "queued" && body["created_at"] is String)
                #expect(response.headers[.location] == "/api/outbound/\(id)")
            }
            // Stored before it was announced.
            #expect(try await h.store.call(id: id)?.purpose == "내일 오후 2시 미팅 일정 확인")
            try await client.execute(uri: "/api/outbound/", method: .get) { response in
                let body = Self.json(response.body)
                let item = (body["items"] as? [[String: Any]])?.first
                #expect(body["total"] as? Int == 1 && item?["outbound_id"] as? String == id)
                #expect(item?["callee_number"] as? String == "010******32", "masked in lists: \(item?["callee_number"] ?? "")")
            }
            try await client.execute(uri: "/api/outbound/\(id)", method: .get) { response in
                let body = Self.json(response.body)
                #expect(body["callee_number"] as? String == "01098765432", "complete in detail")
                #expect(body["caller_display_name"] as? String == "ABC 주식회사")
                #expect((body["timeline"] as? [[String: Any]])?.first?["state"] as? String == "queued")
            }
            try await client.execute(uri: "/api/outbound/\(id)/result", method: .get) { response in
                let answers = Self.json(response.body)["answers"] as? [[String: Any]]
                #expect(answers?.map { $0["status"] as? String } == ["not_asked", "not_asked"])
                #expect(answers?.first?["question_text"] as? String == "참석 가능 여부")
            }
            // One open call per callee number: the same number again is a conflict.
            try await client.execute(uri: "/api/outbound/", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: Self.seedBody)) { response in
                #expect(response.status == .conflict)
                #expect(response.headers[.contentType] == "application/problem+json")
            }
            try await client.execute(uri: "/api/outbound/\(id)/cancel", method: .post) { response in
                #expect(response.status == .ok && Self.json(response.body)["state"] as? String == "cancelled")
            }
            try await client.execute(uri: "/api/outbound/\(id)/cancel", method: .post) { response in
                #expect(response.status == .conflict, "cancelling an ended call")
                #expect(Self.json(response.body)["detail"] as? String == "call \(id) has already ended (cancelled)")
            }
            try await client.execute(uri: "/api/outbound/\(id)/retry", method: .post) { response in
                #expect(response.status == .accepted && Self.json(response.body)["state"] as? String == "queued")
            }
            try await client.execute(uri: "/api/outbound/\(id)/retry", method: .post) { response in
                #expect(response.status == .conflict, "a queued call cannot be retried")
            }
            try await client.execute(uri: "/api/outbound/ob-00000000", method: .get) { response in
                #expect(response.status == .notFound)
                #expect(Self.json(response.body)["status"] as? Int == 404)
            }
            try await client.execute(uri: "/api/outbound/ob-00000000/cancel", method: .post) { response in
                #expect(response.status == .notFound)
            }
        }
    }

    /// Every attempt is listed with its outcome and times, and a call waiting for its retry says
    /// what the last attempt ended in (the store moves the call as the call manager would).
    @Test(arguments: StoreBackend.allCases) func attemptsAndTheLastOutcomeAreShown(database: StoreBackend) async throws {
        let h = try await Self.harness(database: database)
        try await h.app.test(.router) { client in
            var id = ""
            try await client.execute(uri: "/api/outbound/", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: Self.seedBody)) { response in
                id = Self.json(response.body)["outbound_id"] as? String ?? ""
            }
            try await h.store.transition(id: id, to: .dialing)
            try await h.store.setSIPCallID(callID: id, sipCallID: "first-attempt@127.0.0.1")
            try await h.store.endAttempt(id: id, in: .busy, reason: "busy", retryAt: Date().addingTimeInterval(300))
            try await client.execute(uri: "/api/outbound/", method: .get) { response in
                let item = (Self.json(response.body)["items"] as? [[String: Any]])?.first
                #expect(item?["state"] as? String == "queued" && item?["last_outcome"] as? String == "busy", "\(item ?? [:])")
            }
            try await h.store.transition(id: id, to: .dialing)
            try await h.store.transition(id: id, to: .connected)
            try await h.store.transition(id: id, to: .completed)
            try await client.execute(uri: "/api/outbound/\(id)", method: .get) { response in
                let body = Self.json(response.body)
                let attempts = body["attempts"] as? [[String: Any]] ?? []
                #expect(attempts.map { $0["number"] as? Int } == [1, 2])
                #expect(attempts.map { $0["outcome"] as? String } == ["busy", "completed"])
                #expect(attempts.first?["reason"] as? String == "busy" && attempts.allSatisfy { $0["started_at"] is String && $0["ended_at"] is String })
                #expect(body["attempt_count"] as? Int == 2 && body["last_outcome"] as? String == "completed")
            }
        }
    }

    @Test func invalidInputGetsOneMessagePerField() async throws {
        let h = try await Self.harness()
        try await h.app.test(.router) { client in
            let bad = #"{"caller_number":"abc","callee_number":"","purpose":" ","questions":[],"max_duration":5,"priority":11}"#
            try await client.execute(uri: "/api/outbound/", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: bad)) { response in
                #expect(response.status == .unprocessableContent)
                #expect(response.headers[.contentType] == "application/problem+json")
                let fields = (Self.json(response.body)["errors"] as? [[String: String]] ?? []).compactMap { $0["field"] }
                #expect(Set(fields) == ["caller_number", "callee_number", "purpose", "questions", "max_duration", "priority"], "\(fields)")
            }
            try await client.execute(uri: "/api/outbound/", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: "{not json")) { response in
                #expect(response.status == .badRequest && Self.json(response.body)["title"] as? String == "Bad Request")
            }
            try await client.execute(uri: "/api/outbound/", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: #"{"questions":"one"}"#)) { response in
                #expect(response.status == .unprocessableContent)
                #expect((Self.json(response.body)["errors"] as? [[String: String]])?.first?["field"] == "questions")
            }
            try await client.execute(uri: "/api/outbound/?state=ringing,bogus&limit=0", method: .get) { response in
                let fields = (Self.json(response.body)["errors"] as? [[String: String]] ?? []).compactMap { $0["field"] }
                #expect(response.status == .unprocessableContent && fields == ["state", "limit"])
            }
            try await client.execute(uri: "/api/nothing-here", method: .get) { response in
                #expect(response.status == .notFound && response.headers[.contentType] == "application/problem+json")
            }
            try await client.execute(uri: "/api/outbound/", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(repeating: UInt8(ascii: "a"), count: 200_000)) { response in
                #expect(response.status == .contentTooLarge || response.status == .badRequest, "an oversized body is refused: \(response.status)")
            }
        }
        #expect(try await h.store.page().total == 0, "nothing invalid was stored")
    }

    @Test(arguments: StoreBackend.allCases) func filtersSearchPaginationStatsAndActive(database: StoreBackend) async throws {
        let h = try await Self.harness(database: database)
        // Rows written straight into the store in known states.
        for (n, state) in [CallState.completed, .completed, .noAnswer, .busy, .failed, .queued].enumerated() {
            var call = CallRecord(outboundId: String(format: "ob-%08x", n), callerNumber: "07012345678", calleeNumber: "0109999000\(n)",
                                  purpose: n == 2 ? "delivery window" : "meeting", questions: ["q"], createdAt: Date(timeIntervalSince1970: 1_800_000_000 + Double(n)))
            call.state = state
            call.durationSeconds = state == .completed ? 60 + n * 30 : nil
            call.taskCompleted = state == .completed ? (n == 0) : nil
            try await h.store.insert(call)
        }
        try await h.app.test(.router) { client in
            try await client.execute(uri: "/api/outbound/?state=completed", method: .get) { response in
                #expect(Self.json(response.body)["total"] as? Int == 2)
            }
            try await client.execute(uri: "/api/outbound/?q=delivery", method: .get) { response in
                let items = Self.json(response.body)["items"] as? [[String: Any]]
                #expect(items?.map { $0["outbound_id"] as? String } == ["ob-00000002"])
            }
            try await client.execute(uri: "/api/outbound/?q=010-9999-0004", method: .get) { response in
                #expect((Self.json(response.body)["items"] as? [[String: Any]])?.first?["outbound_id"] as? String == "ob-00000004", "search by number, separators ignored")
            }
            try await client.execute(uri: "/api/outbound/?limit=2&offset=1", method: .get) { response in
                let items = Self.json(response.body)["items"] as? [[String: Any]]
                #expect(items?.map { $0["outbound_id"] as? String } == ["ob-00000004", "ob-00000003"], "newest first, second page")
            }
            try await client.execute(uri: "/api/outbound/active", method: .get) { response in
                #expect((Self.json(response.body)["items"] as? [[String: Any]])?.map { $0["state"] as? String } == ["queued"])
            }
            try await client.execute(uri: "/api/outbound/stats", method: .get) { response in
                let s = Self.json(response.body)
                #expect(s["total"] as? Int == 6 && s["completed"] as? Int == 2 && s["no_answer"] as? Int == 1 && s["busy"] as? Int == 1)
                #expect(s["failed"] as? Int == 1 && s["queued"] as? Int == 1 && s["in_progress"] as? Int == 0)
                #expect(s["success_rate"] as? Double == 20, "1 of 5 ended calls completed its task")
                #expect(s["average_duration_seconds"] as? Double == 75)
            }
        }
    }

    @Test(arguments: StoreBackend.allCases) func recordingsServeByteRanges(database: StoreBackend) async throws {
        let h = try await Self.harness(database: database)
        let call = CallRecord(outboundId: "ob-0000beef", callerNumber: "0701", calleeNumber: "0109", purpose: "p", questions: ["q"])
        try await h.store.insert(call)
        let folder = h.server.config.database.recordings
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = folder + "/rec.wav"
        let bytes = (0..<1000).map { UInt8($0 % 251) }
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        try await h.store.addRecording(callID: call.outboundId, path: path, bytes: bytes.count, durationSeconds: 0.1)
        try await h.app.test(.router) { client in
            try await client.execute(uri: "/api/outbound/ob-0000beef/recording", method: .get) { response in
                #expect(response.status == .ok && Array(response.body.readableBytesView) == bytes)
                #expect(response.headers[.contentType] == "audio/wav" && response.headers[.acceptRanges] == "bytes")
            }
            try await client.execute(uri: "/api/outbound/ob-0000beef/recording", method: .get, headers: [.range: "bytes=10-19"]) { response in
                #expect(response.status == .partialContent && Array(response.body.readableBytesView) == Array(bytes[10...19]))
                #expect(response.headers[.contentRange] == "bytes 10-19/1000")
            }
            try await client.execute(uri: "/api/outbound/ob-0000beef/recording", method: .get, headers: [.range: "bytes=-5"]) { response in
                #expect(Array(response.body.readableBytesView) == Array(bytes.suffix(5)))
            }
            try await client.execute(uri: "/api/outbound/ob-0000beef/recording", method: .get, headers: [.range: "bytes=5000-"]) { response in
                #expect(response.status == .rangeNotSatisfiable && response.headers[.contentRange] == "bytes */1000")
            }
            try await client.execute(uri: "/api/outbound/ob-0000beef/result", method: .get) { response in
                #expect(Self.json(response.body)["recording_url"] as? String == "/api/outbound/ob-0000beef/recording")
            }
        }
    }

    @Test(arguments: StoreBackend.allCases) func tokensAreRequiredWhenConfiguredAndCreationsAreRateLimited(database: StoreBackend) async throws {
        let h = try await Self.harness(tokens: ["alpha", "beta"], perMinute: 2, database: database)
        @Sendable func body(_ n: Int) -> ByteBuffer { ByteBuffer(string: Self.seedBody.replacingOccurrences(of: "010-9876-5432", with: "010-0000-000\(n)")) }
        try await h.app.test(.router) { client in
            try await client.execute(uri: "/api/outbound/", method: .get) { response in
                #expect(response.status == .unauthorized && response.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true)
            }
            try await client.execute(uri: "/api/outbound/", method: .get, headers: [.authorization: "Bearer wrong"]) { response in
                #expect(response.status == .unauthorized)
            }
            try await client.execute(uri: "/metrics", method: .get) { response in
                #expect(response.status == .unauthorized)
            }
            for n in 0..<2 {
                try await client.execute(uri: "/api/outbound/", method: .post, headers: [.contentType: "application/json", .authorization: "Bearer alpha"], body: body(n)) { response in
                    #expect(response.status == .accepted)
                }
            }
            try await client.execute(uri: "/api/outbound/", method: .post, headers: [.contentType: "application/json", .authorization: "Bearer alpha"], body: body(2)) { response in
                #expect(response.status == .tooManyRequests && Int(response.headers[.retryAfter] ?? "") ?? 0 > 0)
            }
            let first = try #require(try await h.store.page().calls.first?.outboundId)
            try await client.execute(uri: "/api/outbound/\(first)/retry", method: .post, headers: [.authorization: "Bearer alpha"]) { response in
                #expect(response.status == .tooManyRequests, "a retry is a dial: it counts against the same limit (issue 36)")
            }
            try await client.execute(uri: "/api/outbound/", method: .post, headers: [.contentType: "application/json", .authorization: "Bearer beta"], body: body(3)) { response in
                #expect(response.status == .accepted, "the limit is per token")
            }
            try await client.execute(uri: "/healthz", method: .get) { response in
                #expect(response.status == .ok, "health stays open")
            }
        }
        #expect(try await h.store.page().total == 3)
    }

    @Test func allowedCallerIDsAreEnforced() async throws {
        var config = TwilioStreamTests.config()
        config.engine.mode = .echo
        config.sip.allowedCallerIDs = ["07012345678"]
        let store = try CallStore(path: config.database.path)
        let calls = try await CallSystem.start(config: config, store: store, logger: Logger(label: "test"))
        let app = Application(router: VoiceBridgeServer(config: config, store: store, logger: Logger(label: "test"), calls: calls).router())
        try await app.test(.router) { client in
            try await client.execute(uri: "/api/outbound/", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: Self.seedBody.replacingOccurrences(of: "070-1234-5678", with: "070-1111-2222"))) { response in
                #expect(response.status == .unprocessableContent)
                #expect((Self.json(response.body)["errors"] as? [[String: String]])?.first == ["field": "caller_number", "message": "is not an allowed caller ID"])
            }
            try await client.execute(uri: "/api/outbound/", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: Self.seedBody)) { response in
                #expect(response.status == .accepted)
            }
        }
    }
}
