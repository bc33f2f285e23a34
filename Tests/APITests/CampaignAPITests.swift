import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport
@testable import API
@testable import Calls

/// `/api/campaigns` through the in-process client on a real store (the call manager is not
/// dialing): create, upload with the row report, the lifecycle, and the export's shape.
@Suite(.serialized) struct CampaignAPITests {
    static func json(_ buffer: ByteBuffer) -> [String: Any] { OutboundAPITests.json(buffer) }

    static let template = #"{"name":"reminder","purpose":"{이름}님의 예약","questions":["{날짜}에 오실 수 있나요?","Parking?"]}"#
    static let list = "\u{FEFF}이름,전화번호,날짜\n김민수,010-1111-0001,월요일\n이영희,010-1111-0002,화요일\n박지훈,12,수요일\n최수진,010 1111 0001,목요일\n정다은,010-1111-0003,\n한지민,010-9999-0000,금요일\n"

    @Test(arguments: StoreBackend.allCases) func uploadReportsEveryRowThenTheLifecycleAndTheExport(database: StoreBackend) async throws {
        let h = try await OutboundAPITests.harness(database: database)
        try await h.store.doNotCall.add([.init(number: "01099990000")])
        try await h.app.test(.router) { client in
            try await client.execute(uri: "/api/templates", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: Self.template)) { response in
                #expect(response.status == .created)
            }
            let invalid = #"{"name":"x","template":"nope","caller_number":"1","max_concurrent_calls":99,"window":{"time_zone":"Seoul","days":[1],"start":"09:00","end":"18:00"}}"#
            try await client.execute(uri: "/api/campaigns", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: invalid)) { response in
                #expect(response.status == .unprocessableContent)
                let fields = (Self.json(response.body)["errors"] as? [[String: Any]] ?? []).compactMap { $0["field"] as? String }
                #expect(fields == ["caller_number", "max_concurrent_calls", "window.time_zone", "template"], "\(fields)")
            }
            var id = ""
            let body = #"{"name":"11월 예약 확인","template":"reminder","caller_number":"070-1234-5678","calls_per_minute":30,"max_concurrent_calls":2,"window":{"time_zone":"Asia/Seoul","days":[1,2,3,4,5],"start":"09:00","end":"18:00"},"retry":{"on":["no_answer"],"max_retries":1,"delay_seconds":600}}"#
            try await client.execute(uri: "/api/campaigns", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: body)) { response in
                #expect(response.status == .created)
                let campaign = Self.json(response.body)
                id = campaign["id"] as? String ?? ""
                #expect(campaign["state"] as? String == "draft" && campaign["template_version"] as? Int == 1)
            }
            try await client.execute(uri: "/api/campaigns/\(id)/start", method: .post) { response in
                #expect(response.status == .conflict, "nothing to call yet")
            }
            try await client.execute(uri: "/api/campaigns/\(id)/contacts", method: .post, headers: [.contentType: "text/csv"], body: ByteBuffer(string: Self.list)) { response in
                #expect(response.status == .ok)
                let report = Self.json(response.body)
                #expect(report["accepted"] as? Int == 2 && report["skipped"] as? Int == 4)
                let rows = (report["skipped_rows"] as? [[String: Any]] ?? []).map { "\($0["line"] ?? "") \($0["reason"] ?? "")" }
                #expect(rows == ["4 not a phone number (3 to 20 digits, optionally starting with +)", "5 duplicate of line 2",
                                 "6 questions.0: has no value for {날짜}: give it in `variables`", "7 on the do-not-call list"], "\(rows)")
            }
            try await client.execute(uri: "/api/campaigns/\(id)/contacts?state=waiting", method: .get) { response in
                let page = Self.json(response.body)
                let items = page["items"] as? [[String: Any]] ?? []
                #expect(page["total"] as? Int == 2 && items.map { $0["line"] as? Int } == [2, 3] && items.first?["state"] as? String == "waiting")
                #expect((items.first?["variables"] as? [String: String])?["이름"] == "김민수")
            }
            try await client.execute(uri: "/api/campaigns/\(id)/contacts?state=completed", method: .get) { response in
                #expect(Self.json(response.body)["total"] as? Int == 0)
            }
            try await client.execute(uri: "/api/campaigns/\(id)/contacts?state=bogus", method: .get) { response in
                #expect(response.status == .unprocessableContent)
            }
            try await client.execute(uri: "/api/campaigns/\(id)", method: .get) { response in
                let campaign = Self.json(response.body)
                #expect(campaign["contacts"] as? Int == 2 && campaign["skipped"] as? Int == 4)
                #expect((campaign["skipped_rows"] as? [Any])?.count == 4 && campaign["columns"] as? [String] == ["이름", "날짜"])
                #expect((campaign["progress"] as? [String: Any])?["waiting"] as? Int == 2)
            }
            let steps: [(String, String, HTTPResponse.Status)] = [("start", "running", .ok), ("start", "", .conflict), ("pause", "paused", .ok),
                                                                  ("start", "running", .ok), ("cancel", "cancelled", .ok), ("pause", "", .conflict)]
            for (action, state, status) in steps {
                try await client.execute(uri: "/api/campaigns/\(id)/\(action)", method: .post) { response in
                    #expect(response.status == status, "\(action)")
                    if !state.isEmpty { #expect(Self.json(response.body)["state"] as? String == state, "\(action)") }
                }
            }
            try await client.execute(uri: "/api/campaigns/\(id)/contacts", method: .post, headers: [.contentType: "text/csv"], body: ByteBuffer(string: Self.list)) { response in
                #expect(response.status == .conflict, "contacts only go into a draft")
            }
            try await client.execute(uri: "/api/campaigns/\(id)/results.csv", method: .get) { response in
                #expect(response.headers[.contentType] == "text/csv; charset=utf-8")
                let bytes = Array(response.body.readableBytesView)
                #expect(Array(bytes.prefix(3)) == [0xEF, 0xBB, 0xBF] as [UInt8], "a UTF-8 BOM for spreadsheet software")
                let lines = String(decoding: bytes.dropFirst(3), as: UTF8.self).components(separatedBy: "\r\n").filter { !$0.isEmpty }
                #expect(lines.first == "line,number,이름,날짜,state,last_outcome,attempts,duration_seconds,q1_status,q1_answer,q2_status,q2_answer,summary,recording_url,outbound_id,skip_reason")
                #expect(lines.count == 3 && lines[1].hasPrefix("2,01011110001,김민수,월요일,waiting,"), "\(lines)")
            }
            try await client.execute(uri: "/api/campaigns/\(id)/results.jsonl", method: .get) { response in
                let lines = String(buffer: response.body).split(separator: "\n").map(String.init)
                let first = (try? JSONSerialization.jsonObject(with: Data((lines.first ?? "").utf8))) as? [String: Any]
                #expect(lines.count == 2 && first?["number"] as? String == "01011110001" && (first?["variables"] as? [String: String])?["이름"] == "김민수")
            }
            try await client.execute(uri: "/api/campaigns", method: .get) { response in
                #expect((Self.json(response.body)["items"] as? [[String: Any]])?.first?["state"] as? String == "cancelled")
            }
            try await client.execute(uri: "/api/stats?campaign=\(id)", method: .get) { response in
                let stats = Self.json(response.body)
                #expect(stats["scope"] as? String == "the calls of campaign \(id)")
                let rate = stats["success_rate"] as? [String: Any]
                #expect(rate?["value"] as? Double == 0 && (rate?["counts"] as? String)?.contains("ended calls") == true)
            }
            try await client.execute(uri: "/api/stats?campaign=cp-00000000", method: .get) { response in
                #expect(response.status == .notFound)
            }
        }
    }
}
