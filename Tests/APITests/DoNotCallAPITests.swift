import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport
@testable import API
@testable import Calls

/// `/api/dnc` through the in-process client, on a real store: numbers listed are refused for
/// every outbound call with a problem+json that says why.
@Suite(.serialized) struct DoNotCallAPITests {
    static func json(_ buffer: ByteBuffer) -> [String: Any] { OutboundAPITests.json(buffer) }

    @Test(arguments: StoreBackend.allCases) func listedNumbersAreRefusedUntilRemoved(database: StoreBackend) async throws {
        let h = try await OutboundAPITests.harness(database: database)
        try await h.app.test(.router) { client in
            // All or none: one bad number is a 422 naming it, and nothing is added.
            try await client.execute(uri: "/api/dnc", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: #"{"numbers":["010-9876-5432","hello"],"reason":"asked"}"#)) { response in
                #expect(response.status == .unprocessableContent)
                let errors = Self.json(response.body)["errors"] as? [[String: Any]]
                #expect(errors?.map { $0["field"] as? String } == ["numbers.1"], "\(errors ?? [])")
            }
            #expect(try await h.store.doNotCall.contains("01098765432") == false)
            try await client.execute(uri: "/api/dnc", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: #"{"numbers":["010-9876-5432","+82 2 555 0100"],"reason":"asked not to be called"}"#)) { response in
                #expect(response.status == .ok)
                let body = Self.json(response.body)
                #expect(body["added"] as? Int == 2 && body["already_listed"] as? Int == 0)
            }
            try await client.execute(uri: "/api/dnc", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: #"{"numbers":["010 9876 5432"]}"#)) { response in
                #expect(Self.json(response.body)["added"] as? Int == 0 && Self.json(response.body)["already_listed"] as? Int == 1, "one entry per number however it is written")
            }
            try await client.execute(uri: "/api/dnc?q=9876", method: .get) { response in
                let body = Self.json(response.body)
                let items = body["items"] as? [[String: Any]]
                #expect(body["total"] as? Int == 1 && items?.first?["number"] as? String == "01098765432")
                #expect(items?.first?["reason"] as? String == "asked not to be called" && items?.first?["added_at"] is String)
            }
            // The seed call goes to 010-9876-5432: refused, and nothing is stored.
            try await client.execute(uri: "/api/outbound/", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: OutboundAPITests.seedBody)) { response in
                #expect(response.status == .forbidden)
                #expect(response.headers[.contentType] == "application/problem+json")
                #expect((Self.json(response.body)["detail"] as? String)?.contains("01098765432 is on the do-not-call list") == true)
            }
            #expect(try await h.store.page().total == 0)
            try await client.execute(uri: "/api/dnc/010-9876-5432", method: .delete) { response in
                #expect(response.status == .noContent)
            }
            try await client.execute(uri: "/api/dnc/010-9876-5432", method: .delete) { response in
                #expect(response.status == .notFound)
            }
            try await client.execute(uri: "/api/outbound/", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: OutboundAPITests.seedBody)) { response in
                #expect(response.status == .accepted, "callable again once removed")
            }
        }
    }

    @Test(arguments: StoreBackend.allCases) func aCSVImportAddsGoodRowsAndReportsEveryOtherRow(database: StoreBackend) async throws {
        let h = try await OutboundAPITests.harness(database: database)
        let csv = "\u{FEFF}이름,전화번호,메모\n김민수,010-1111-2222,\"VIP, 오전만\"\n이영희,not a number,\n\n박지훈,010 1111 2222,중복\n최수진,+82-10-3333-4444\n정다은,02-555-0101,\"여러\n줄\"\n"
        try await h.app.test(.router) { client in
            try await client.execute(uri: "/api/dnc/import", method: .post, headers: [.contentType: "text/csv"], body: ByteBuffer(string: csv)) { response in
                #expect(response.status == .ok)
                let body = Self.json(response.body)
                #expect(body["added"] as? Int == 2)
                let skipped = (body["skipped"] as? [[String: Any]] ?? []).map { "\($0["line"] ?? "") \($0["column"] ?? "") \($0["reason"] ?? "")" }
                #expect(skipped == ["3 전화번호 not a phone number (3 to 20 digits, optionally starting with +)",
                                    "5 전화번호 duplicate of line 2",
                                    "6  has 2 fields; the header has 3"], "\(skipped)")
            }
            #expect(try await h.store.doNotCall.listed(among: ["01011112222", "025550101", "+821033334444"]) == ["01011112222", "025550101"])
            try await client.execute(uri: "/api/dnc/import?phone_column=phone", method: .post, headers: [.contentType: "text/csv"], body: ByteBuffer(string: csv)) { response in
                #expect(response.status == .unprocessableContent)
                #expect((Self.json(response.body)["detail"] as? String)?.contains("there is no column 'phone'") == true)
            }
        }
    }
}
