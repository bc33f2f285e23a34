import Foundation
import GRDB
import Testing
import TestLanes
import TestSupport
@testable import Calls

@Suite struct CallStoreTests {
    static func temporaryPath() -> String { StoreBackend.temporarySQLitePath() }

    /// Every migration, in order: what a new or an old database has applied once the store opens it.
    static let migrations = ["v1-calls", "v2-results", "v3-lookups", "v4-call-reports", "v5-last-outcome", "v6-do-not-call", "v7-templates", "v8-campaigns",
                             "v9-bot-url", "v10-answered-by", "v11-webhooks", "v12-machine-detection", "v13-transfer", "v14-storage-keys", "v15-nodes",
                             "v16-canonical-numbers", "v17-tools", "v18-knowledge", "v19-flows-and-analysis", "v20-call-language", "v21-knowledge-questions",
                             "v22-noise-suppression", "v23-trace-parent", "v24-languages-spoken"]

    static func sampleCall(_ id: String = CallRecord.newID()) -> CallRecord {
        CallRecord(outboundId: id, callerNumber: "07012345678", calleeNumber: "01098765432",
                   callerDisplayName: "ABC Company", purpose: "confirm tomorrow's 2 pm meeting",
                   questions: ["Can you attend?", "Does the place need to change?"], metadata: #"{"simulated_answers":["yes"]}"#)
    }

    @Test func migratesAnEmptyFileInWALMode() async throws {
        let store = try CallStore(path: Self.temporaryPath())
        #expect(try await store.appliedMigrations() == Self.migrations)
        #expect(try await store.journalMode() == "wal")
        #expect(await store.isHealthy())
    }

    /// Nodes started together on one new SQLite file all open it: switching a new file to WAL
    /// needs a lock another opener may hold, and SQLite refuses that at once instead of waiting.
    /// (`CallStore.open` tries again; the synchronous initializer, which nodes do not use, does not.)
    @Test func nodesOpeningOneNewFileAtOnceAllOpenIt() async throws {
        for _ in 0..<10 {
            let path = Self.temporaryPath()
            let failures = await withTaskGroup(of: String?.self) { group in
                for _ in 0..<3 {
                    group.addTask {
                        do { _ = try await CallStore.open(path); return nil } catch { return "\(error)" }
                    }
                }
                return await group.reduce(into: [String]()) { if let failure = $1 { $0.append(failure) } }
            }
            #expect(failures == [])
        }
    }

    /// PostgreSQL gets the same migrations; two nodes opening one new database at the same moment
    /// migrate it once (the second waits for the writers' lock and finds nothing to do).
    @Test func migratesAnEmptyPostgreSQLDatabaseOnceForTwoNodes() async throws {
        let url = try await StoreBackend.postgres.newLocation()
        async let a = CallStore.open(url)
        async let b = CallStore.open(url)
        let (first, second) = try await (a, b)
        #expect(try await first.appliedMigrations() == CallStore.migrator.migrations.map(\.name))
        #expect(try await second.appliedMigrations() == Self.migrations)
        #expect(try await first.journalMode() == nil && first.path.hasPrefix("postgres://vb@127.0.0.1:") && !first.path.contains("vbpass"))
        #expect(await second.isHealthy())
        try await first.close()
        try await second.close()
    }

    /// A reader waiting for events on one node is woken as soon as another node's transaction
    /// that appended one commits (LISTEN/NOTIFY): it waits an hour otherwise, and the test has a minute.
    @Test(.timeLimit(.minutes(1))) func anotherNodesEventWakesAWaitingReaderAtOnce() async throws {
        let url = try await StoreBackend.postgres.newLocation()
        let reader = try await CallStore.open(url), writer = try await CallStore.open(url)
        #expect(reader.announcesEvents)
        try await withThrowingTaskGroup(of: Void.self) { group in
            // Child tasks, so the time limit's cancellation ends their waits.
            async let first: Void = reader.waitForEvents(timeout: .seconds(3600))
            while reader.shared.eventBell.waiting == 0 { await Task.yield() }   // it waits: a ring before would be lost
            group.addTask { await reader.listenForEvents() }
            await first   // rung once listening starts
            async let woken: Void = reader.waitForEvents(timeout: .seconds(3600))
            while reader.shared.eventBell.waiting == 0 { await Task.yield() }
            try await writer.insert(Self.sampleCall())
            await woken
            #expect(try await reader.events().map(\.type) == ["outbound_queued"])
            group.cancelAll()
        }
        try await reader.close()
        try await writer.close()
    }

    /// On either database a reader on the node that commits an event is woken by the commit (a
    /// SQLite file has no notifications): it waits an hour otherwise, and the test has a minute.
    @Test(.timeLimit(.minutes(1)), arguments: StoreBackend.allCases)
    func thisNodesEventWakesAWaitingReaderAtOnce(backend: StoreBackend) async throws {
        let store = try await backend.store()
        let woken = Task { await store.waitForEvents(timeout: .seconds(3600)) }
        while store.shared.eventBell.waiting == 0 { await Task.yield() }   // it waits: a ring before would be lost
        try await store.setTransfer(callID: "ob-00000000", target: "+15550100", outcome: "busy")   // no event: nothing rings
        #expect(store.shared.eventBell.waiting == 1, "a transaction that appended no event woke the reader")
        try await store.insert(Self.sampleCall())
        await woken.value
        #expect(try await store.events().map(\.type) == ["outbound_queued"])
        try await store.close()
    }

    @Test func migratesAFileFromThePreviousSchemaKeepingItsRows() async throws {
        let path = Self.temporaryPath()
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        do {
            // Files were migrated by GRDB's migrator before the store had its own: its record of
            // what was applied (grdb_migrations) is where the store's migrator carries on from.
            let old = try DatabaseQueue(path: path)
            var grdb = DatabaseMigrator()
            grdb.registerMigration("v1-calls") { db in
                for statement in CallStore.migrator.migrations[0].statements(.sqlite) { try db.execute(sql: statement) }
            }
            try grdb.migrate(old)
            try await old.write { db in
                try db.execute(sql: """
                    INSERT INTO calls (outbound_id, caller_number, callee_number, purpose, questions, max_duration, state, created_at)
                    VALUES ('ob-0000abcd', '0701', '0109', 'old call', '["q"]', 180, 'queued', '2026-11-01 10:00:00.000'),
                           ('ob-0000beef', '0701', '0108', 'old busy call', '["q"]', 180, 'busy', '2026-11-01 10:00:00.000')
                    """)
            }
            #expect(try await old.read { try db_columns($0) }.contains("summary") == false)
        }
        let store = try CallStore(path: path)
        #expect(try await store.appliedMigrations() == Self.migrations)
        let call = try #require(try await store.call(id: "ob-0000abcd"))
        #expect(call.purpose == "old call" && call.questions == ["q"] && call.state == .queued)
        #expect(call.summary == nil && call.lastOutcome == nil)
        #expect(try await store.call(id: "ob-0000beef")?.lastOutcome == "busy", "v5 fills the last outcome of ended calls")
        #expect(call.calleeCanonical == "+82109", "v16's canonical numbers are filled when the store opens")
    }

    @Test(arguments: StoreBackend.allCases)
    func storesAndReadsBackEveryField(backend: StoreBackend) async throws {
        let store = try await backend.store()
        var call = Self.sampleCall("ob-12345678")
        call.scheduledAt = Date(timeIntervalSince1970: 1_800_000_000)
        call.priority = 9
        let (stored, event) = try await store.insert(call)
        #expect(stored.outboundId == "ob-12345678" && event.type == "outbound_queued" && event.id != nil)
        let back = try #require(try await store.call(id: "ob-12345678"))
        #expect(back.questions == call.questions && back.metadata == call.metadata)
        #expect(back.scheduledAt == call.scheduledAt && back.priority == 9 && back.direction == .outbound)
    }

    /// Ids are 32 random bits: `make bench`'s 2,000 API calls once drew one twice and the second
    /// POST failed with a constraint error. A taken id is drawn again, in the same transaction.
    @Test(arguments: StoreBackend.allCases)
    func aNewCallWhoseIDIsTakenIsStoredUnderAFreshOne(backend: StoreBackend) async throws {
        let store = try await backend.store()
        let first = try await store.insert(Self.sampleCall("ob-0000abcd")).call
        var inbound = Self.sampleCall("ob-0000abcd")
        inbound.direction = .inbound
        let (second, event) = try await store.insert(inbound)
        #expect(first.outboundId == "ob-0000abcd")
        #expect(second.outboundId != "ob-0000abcd" && second.outboundId.wholeMatch(of: /ib-[0-9a-f]{8}/) != nil, "drawn again, with its direction's prefix")
        #expect(event.outboundId == second.outboundId && event.type == "inbound_queued")
        let back = try #require(try await store.call(id: second.outboundId))
        #expect(back.direction == .inbound && back.purpose == inbound.purpose)
        #expect(try await store.call(id: "ob-0000abcd")?.direction == .outbound, "the first call is untouched")
    }

    @Test(arguments: StoreBackend.allCases)
    func transitionsFollowTheStateMachineAndAppendEvents(backend: StoreBackend) async throws {
        let store = try await backend.store()
        let call = Self.sampleCall()
        try await store.insert(call)
        let (dialing, _) = try await store.transition(id: call.outboundId, to: .dialing)
        #expect(dialing.attemptCount == 1 && dialing.startedAt != nil)
        try await store.transition(id: call.outboundId, to: .ringing)
        let (connected, _) = try await store.transition(id: call.outboundId, to: .connected)
        #expect(connected.answeredAt != nil)
        await #expect(throws: CallStore.Failure.invalidTransition(id: call.outboundId, from: .connected, to: .busy)) {
            try await store.transition(id: call.outboundId, to: .busy)
        }
        let (done, last) = try await store.transition(id: call.outboundId, to: .completed)
        #expect(done.completedAt != nil && done.state == .completed)
        let events = try await store.events()
        #expect(events.map(\.type) == ["outbound_queued", "outbound_dialing", "outbound_ringing", "outbound_connected", "outbound_completed"])
        #expect(events.map(\.id!) == events.map(\.id!).sorted())
        #expect(try await store.events(after: events[2].id!).map(\.id) == [events[3].id, last.id])
        await #expect(throws: CallStore.Failure.notFound("ob-nope")) { try await store.transition(id: "ob-nope", to: .dialing) }
    }

    /// A move made only from the state its writer saw (cancel a queued call) is refused once another
    /// writer has moved the call on, and the row keeps the other writer's state.
    @Test(arguments: StoreBackend.allCases)
    func aMoveFromAnExpectedStateIsRefusedOnceTheCallHasMovedOn(backend: StoreBackend) async throws {
        let store = try await backend.store()
        let call = Self.sampleCall()
        try await store.insert(call)
        try await store.transition(id: call.outboundId, to: .dialing)
        await #expect(throws: CallStore.Failure.invalidTransition(id: call.outboundId, from: .dialing, to: .cancelled)) {
            try await store.transition(id: call.outboundId, to: .cancelled, from: .queued)
        }
        #expect(try await store.call(id: call.outboundId)?.state == .dialing)
        #expect(try await store.transition(id: call.outboundId, to: .cancelled, from: .dialing).0.state == .cancelled)
    }

    /// A call's task is cancelled when the server shuts down; the end it writes then is stored.
    @Test(arguments: StoreBackend.allCases)
    func aCancelledTaskStillReadsAndWrites(backend: StoreBackend) async throws {
        let store = try await backend.store()
        let call = Self.sampleCall()
        try await store.insert(call)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            #expect(Task.isCancelled)
            try await store.transition(id: call.outboundId, to: .dialing)
            return try await store.call(id: call.outboundId)?.state
        }
        #expect(try await task.value == .dialing)
    }

    @Test(arguments: StoreBackend.allCases)
    func reconciliationClosesLiveCallsAndKeepsQueuedOnes(backend: StoreBackend) async throws {
        let path = try await backend.newLocation()
        let ids = (0..<5).map { "ob-0000000\($0)" }
        do {
            let store = try await CallStore.open(path)
            for id in ids { try await store.insert(Self.sampleCall(id)) }
            try await store.transition(id: ids[1], to: .dialing)
            try await store.transition(id: ids[2], to: .dialing); try await store.transition(id: ids[2], to: .ringing)
            try await store.transition(id: ids[3], to: .dialing); try await store.transition(id: ids[3], to: .connected)
            try await store.transition(id: ids[4], to: .dialing); try await store.transition(id: ids[4], to: .busy, reason: "486")
            // No close(): the process "crashes" here.
        }
        let reopened = try await CallStore.open(path)
        let closed = try await reopened.reconcileAfterRestart(node: "n1")
        #expect(Set(closed) == Set(ids[1...3]))
        #expect(try await reopened.call(id: ids[0])?.state == .queued)
        for id in ids[1...3] {
            let call = try #require(try await reopened.call(id: id))
            #expect(call.state == .failed && call.failureReason == "interrupted_by_restart" && call.completedAt != nil)
        }
        #expect(try await reopened.call(id: ids[4])?.state == .busy)
        #expect(try await reopened.reconcileAfterRestart(node: "n1").isEmpty, "a second pass finds nothing")
        let failedEvents = try await reopened.events().filter { $0.type == "outbound_failed" }
        #expect(failedEvents.count == 3 && failedEvents.allSatisfy { $0.payload.contains("interrupted_by_restart") })
    }

    @Test func closeCheckpointsAndRefusesLaterUse() async throws {
        let path = Self.temporaryPath()
        let store = try CallStore(path: path)
        try await store.insert(Self.sampleCall())
        try await store.close()
        #expect(await store.isHealthy() == false)
        let walSize = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
        #expect(walSize == 0)
    }

    @Test func newIDsHaveTheDocumentedShape() {
        let id = CallRecord.newID()
        #expect(id.hasPrefix("ob-") && id.count == 11 && id.dropFirst(3).allSatisfy(\.isHexDigit))
        #expect(CallRecord.newID(direction: .inbound).hasPrefix("ib-"))
    }
}

private func db_columns(_ db: Database) throws -> [String] {
    try db.columns(in: "calls").map(\.name)
}

extension CallStoreTests {
    /// The list view's filters: states, a purpose with LIKE's own characters taken literally, a
    /// number typed with separators matching stored digits; newest first; total before the page.
    @Test(arguments: StoreBackend.allCases)
    func pagesFilterByStateAndSearchPurposeOrNumber(backend: StoreBackend) async throws {
        let store = try await backend.store()
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        for (index, (purpose, callee)) in [("50% off offer", "01011112222"), ("5000 off offer", "01033334444"), ("survey", "01055556666")].enumerated() {
            var call = Self.sampleCall("ob-page000\(index)")
            call.purpose = purpose
            call.calleeNumber = callee
            call.createdAt = t0.addingTimeInterval(Double(index))
            try await store.insert(call)
        }
        try await store.transition(id: "ob-page0002", to: .cancelled)
        #expect(try await store.page(search: "50%").calls.map(\.outboundId) == ["ob-page0000"])   // not "5000", which `%` would match
        #expect(try await store.page(search: "010-3333-4444").calls.map(\.outboundId) == ["ob-page0001"])
        #expect(try await store.page(search: "SURVEY").calls.map(\.outboundId) == ["ob-page0002"], "letter case aside, as SQLite's LIKE")
        let queued = try await store.page(states: [.queued], limit: 1)
        #expect(queued.total == 2 && queued.calls.map(\.outboundId) == ["ob-page0001"])
        #expect(try await store.page(states: [.queued], limit: 1, offset: 1).calls.map(\.outboundId) == ["ob-page0000"])
        #expect(try await store.page(states: [.cancelled, .completed]).calls.map(\.outboundId) == ["ob-page0002"])
        let stats = try await store.stats()
        #expect(stats.byState == [.queued: 2, .cancelled: 1] && stats.tasksCompleted == 0 && stats.averageDurationSeconds == 0)
        #expect(try await store.latestEventID() == 4)   // three queued events and one cancelled
    }
}

extension CallStoreTests {
    /// Templates keep every version; a live name is taken (a deleted template's name is free again),
    /// and a template renamed keeps its id.
    @Test(arguments: StoreBackend.allCases)
    func templatesKeepTheirVersionsAndTheirNamesStayUnique(backend: StoreBackend) async throws {
        let store = try await backend.store()
        let first = try await store.createTemplate(CallTemplate(name: "visit", purpose: "a visit", questions: ["Home?"]))
        #expect(first.version == 1)
        await #expect(throws: CallStore.TemplateFailure.nameTaken("visit")) {
            try await store.createTemplate(CallTemplate(name: "visit", purpose: "another", questions: ["q?"]))
        }
        let second = try await store.updateTemplate(id: first.id, with: CallTemplate(name: "house call", purpose: "a house call", questions: ["Home?", "When?"]))
        #expect(second.id == first.id && second.version == 2)
        #expect(try await store.template("house call")?.questions == ["Home?", "When?"])
        #expect(try await store.template(first.id, version: 1)?.name == "visit")
        #expect(try await store.templateVersions(id: first.id).map(\.version) == [1, 2])
        _ = try await store.createTemplate(CallTemplate(name: "visit", purpose: "the old name, free again", questions: ["q?"]))
        #expect(try await store.templates().map(\.name) == ["house call", "visit"])
        #expect(try await store.deleteTemplate(id: first.id))
        #expect(try await store.template("house call") == nil)
        #expect(try await store.template(id: first.id, version: 2)?.purpose == "a house call", "a deleted template's versions stay")
        await #expect(throws: CallStore.TemplateFailure.notFound(first.id)) {
            try await store.updateTemplate(id: first.id, with: CallTemplate(name: "x", purpose: "x", questions: ["x?"]))
        }
    }
}
