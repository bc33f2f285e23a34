import Dialogue
import Foundation
import GRDB
import Realtime
import Testing
import TestSupport
@testable import Calls

/// Encryption at rest (seed 000 §11.1) on a real SQLite file: what a call said and produced is
/// sealed on disk, read back in the clear through the store, and refused under the wrong key.
@Suite struct StorageEncryptionTests {
    static let keyA = Data((0..<32).map { UInt8($0) })
    static let keyB = Data((0..<32).map { UInt8(255 - $0) })

    @Test func sealedTextOpensAndNamesItsKey() throws {
        let cipher = StorageCipher(currentKey: Self.keyA)
        let sealed = cipher.seal("the caller's words")
        #expect(sealed.hasPrefix("vbenc1:\(cipher.currentKeyID):") && !sealed.contains("caller"))
        #expect(sealed != cipher.seal("the caller's words"), "a fresh nonce each time")
        #expect(try cipher.open(sealed) == "the caller's words")
        #expect(try cipher.open("never sealed") == "never sealed", "text from before encryption reads as it is")
        #expect(StorageCipher.keyID(of: Self.keyA) != StorageCipher.keyID(of: Self.keyB))
        #expect(throws: StorageCipher.Failure.unknownKey(cipher.currentKeyID)) { try StorageCipher(currentKey: Self.keyB).open(sealed) }
        var bytes = Array(sealed.utf8)
        bytes[bytes.count - 6] = bytes[bytes.count - 6] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(throws: StorageCipher.Failure.damaged(keyID: cipher.currentKeyID)) { try cipher.open(String(decoding: bytes, as: UTF8.self)) }
        #expect(try StorageCipher(currentKey: Self.keyB, previousKeys: [Self.keyA]).open(sealed) == "the caller's words", "a previous key still opens")
    }

    /// Writes one call's worth of everything that is sealed; returns its id.
    static func writeCall(_ store: CallStore, number: String) async throws -> String {
        let campaign = Campaign(name: "c", callerNumber: "0701234")
        try await store.campaigns.create(campaign)
        _ = try await store.campaigns.addContacts(campaignID: campaign.id, [.init(line: 2, number: number + "9", variables: ["name": "Ophelia Quartermaine"])],
                                                  problems: [], columns: ["name"])
        var call = CallRecord(outboundId: CallRecord.newID(), callerNumber: "0701234", calleeNumber: number, purpose: "the delivery", questions: ["Which day?"])
        call.metadata = #"{"simulated_answers":["Wednesday, after the marmalade"]}"#
        try await store.insert(call)
        try await store.transition(id: call.outboundId, to: .dialing)
        try await store.transition(id: call.outboundId, to: .connected)
        try await store.appendTranscript(callID: call.outboundId, seconds: 4, speaker: .customer, text: "Wednesday, after the marmalade")
        var result = ConversationResult(tracker: TaskTracker(questions: ["Which day?"]), transcript: [], durationSeconds: 9,
                                        context: ConversationContext(purpose: "the delivery", questions: ["Which day?"], displayName: "ABC"))
        result.answers = [TaskTracker.Answer(questionID: "q1", question: "Which day?", status: .answered, answerText: "Wednesday, after the marmalade",
                                             answerSummary: "yes", confidence: 0.9, timesAsked: 1)]
        result.summary = "Which day? → Wednesday, after the marmalade"
        result.openQuestions = ["Is the marmalade homemade?"]   // kept for the operator, sealed
        try await store.saveResult(callID: call.outboundId, result: result)
        try await store.transition(id: call.outboundId, to: .completed)
        return call.outboundId
    }

    static func fileBytes(_ store: CallStore) throws -> Data {
        let wal = (try? Data(contentsOf: URL(fileURLWithPath: store.path + "-wal"))) ?? Data()
        return try Data(contentsOf: URL(fileURLWithPath: store.path)) + wal
    }

    static let secrets = ["marmalade", "Ophelia", "simulated_answers"]

    @Test func whatACallProducedIsSealedOnDiskAndReadInTheClear() async throws {
        let store = try CallStore(path: CallStoreTests.temporaryPath(), cipher: StorageCipher(currentKey: Self.keyA))
        let endpoint = WebhookEndpoint(url: "http://127.0.0.1:9/all")
        try await store.webhooks.create(endpoint)
        let id = try await Self.writeCall(store, number: "0100000001")

        let bytes = try Self.fileBytes(store)
        #expect(bytes.range(of: Data(endpoint.secret.utf8)) == nil, "the webhook's signing secret is sealed on disk")
        #expect(try await store.webhooks.endpoint(id: endpoint.id)?.secret == endpoint.secret)
        #expect(try await store.webhooks.claimDue(limit: 5, lease: 30).first?.1.secret == endpoint.secret, "the dispatcher signs with it opened")
        let renamed = try await store.webhooks.update(id: endpoint.id) { $0.description = "renamed" }
        let reread = try await store.webhooks.endpoint(id: endpoint.id)
        #expect(renamed.secret == endpoint.secret && reread?.secret == endpoint.secret && reread?.description == "renamed", "an update keeps it")
        for secret in Self.secrets { #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(secret) is on disk in the clear") }
        #expect(bytes.range(of: Data("the delivery".utf8)) != nil, "control: the purpose, not sealed, is found by the same search")

        let call = try #require(try await store.call(id: id))
        #expect(call.metadata?.contains("marmalade") == true && call.summary == "Which day? → Wednesday, after the marmalade")
        #expect(try await store.transcript(callID: id).map(\.entry.text) == ["Wednesday, after the marmalade"])
        #expect(try await store.answers(callID: id).first?.answerText == "Wednesday, after the marmalade")
        #expect(try await store.events(after: 0).contains { $0.type == "transcript" && $0.payload.contains("marmalade") })
        #expect(try await store.webhooks.deliveries(callID: id).first?.payload.contains("marmalade") == true, "the webhook carries the summary")
        #expect(try await store.page().calls.first { $0.outboundId == id }?.summary?.contains("marmalade") == true)
        let campaignID = try #require(try await store.sqlRead { try $0.scalar(String.self, "SELECT id FROM campaigns") })
        #expect(try await store.campaigns.results(campaignID: campaignID).rows.first?.contact.variables["name"] == "Ophelia Quartermaine")
        #expect(try await store.campaigns.contacts(campaignID: campaignID).contacts.first?.variables["name"] == "Ophelia Quartermaine")
        #expect(try await store.statistics().questions.first?.yes == 1, "statistics group by the opened answer")
        #expect(try await store.knowledgeQuestions.open(since: .distantPast).map(\.question) == ["Is the marmalade homemade?"])
    }

    @Test func withoutAKeyTheSameCallIsPlainText() async throws {
        let store = try CallStore(path: CallStoreTests.temporaryPath())
        _ = try await Self.writeCall(store, number: "0100000002")
        let bytes = try Self.fileBytes(store)
        for secret in Self.secrets { #expect(bytes.range(of: Data(secret.utf8)) != nil, "control: \(secret) is found when nothing is sealed") }
    }

    @Test(arguments: StoreBackend.allCases)
    func aWrongKeyOrNoKeyRefusesToOpenTheDatabase(backend: StoreBackend) async throws {
        let path = try await backend.newLocation()
        let a = StorageCipher(currentKey: Self.keyA)
        _ = try await Self.writeCall(try await CallStore.open(path, cipher: a), number: "0100000003")
        await #expect(throws: CallStore.Failure.storageKeysMissing(missing: [a.currentKeyID], configured: [StorageCipher.keyID(of: Self.keyB)])) {
            try await CallStore.open(path, cipher: StorageCipher(currentKey: Self.keyB))
        }
        do {
            _ = try await CallStore.open(path)
            Issue.record("opened without a key")
        } catch {
            #expect("\(error)".contains("sealed with storage key \(a.currentKeyID), but no storage.encryption_key is set"))
        }
    }

    @Test(arguments: StoreBackend.allCases)
    func rekeyMovesPlainAndOldValuesToTheCurrentKeyAndRetiresTheOld(backend: StoreBackend) async throws {
        let path = try await backend.newLocation()
        let plainID = try await Self.writeCall(try await CallStore.open(path), number: "0100000004")           // before encryption
        let oldID = try await Self.writeCall(try await CallStore.open(path, cipher: StorageCipher(currentKey: Self.keyA)), number: "0100000005")
        let both = StorageCipher(currentKey: Self.keyB, previousKeys: [Self.keyA])
        let store = try await CallStore.open(path, cipher: both)
        let newID = try await Self.writeCall(store, number: "0100000006")                                   // already under B
        var steps: [CallStore.RekeyProgress] = []
        let report = try await store.rekey(batchSize: 1) { steps.append($0) }
        #expect(report.retiredKeys == [StorageCipher.keyID(of: Self.keyA)] && report.values > 0)
        #expect(steps.contains { $0.what == "transcript_entries.text" && $0.done == 2 && $0.total == 2 }, "the plain line and A's line; B's untouched")
        #expect(try await store.storageKeyIDs() == [both.currentKeyID])
        for secret in Self.secrets where backend == .sqlite { #expect(try Self.fileBytes(store).range(of: Data(secret.utf8)) == nil, "\(secret) left in the clear after rekey") }
        #expect(try await store.rekey().values == 0, "nothing left: a second run rewrites nothing")

        let onlyB = try await CallStore.open(path, cipher: StorageCipher(currentKey: Self.keyB))
        for id in [plainID, oldID, newID] {
            #expect(try await onlyB.transcript(callID: id).map(\.entry.text) == ["Wednesday, after the marmalade"])
            #expect(try await onlyB.call(id: id)?.metadata?.contains("marmalade") == true)
        }
        #expect(steps.contains { $0.what == "knowledge_questions.question" && $0.total == 2 }, "the open question is resealed too")
        #expect(try await onlyB.knowledgeQuestions.open(since: .distantPast).map(\.question) == Array(repeating: "Is the marmalade homemade?", count: 3))
        await #expect(throws: CallStore.Failure.self) { try await CallStore.open(path, cipher: StorageCipher(currentKey: Self.keyA)) }
    }
}
