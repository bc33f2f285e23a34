import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport
@testable import API
@testable import Calls

/// `/api/knowledge` through the in-process client on both databases: an upload is all or none
/// with every bad file named by file and line, a raw PUT replaces one document, search shows what
/// a call would find (and what the offline engine would say), and deletes take documents out.
@Suite(.serialized) struct KnowledgeAPITests {
    static func json(_ buffer: ByteBuffer) -> [String: Any] { OutboundAPITests.json(buffer) }
    static let json: HTTPFields = [.contentType: "application/json"]

    static func upload(_ files: [[String: String]]) -> ByteBuffer {
        ByteBuffer(data: try! JSONSerialization.data(withJSONObject: ["documents": files]))
    }

    @Test(arguments: StoreBackend.allCases) func uploadsAreAllOrNoneAndSearchable(database: StoreBackend) async throws {
        let h = try await OutboundAPITests.harness(database: database)
        let faq = "question,answer\nWhat are your opening hours?,We are open 9 to 6 on weekdays.\n주차장이 있나요?,건물 뒤에 주차장이 있습니다.\n"
        try await h.app.test(.router) { client in
            // One good file and two bad ones: 422 naming each bad one, nothing stored.
            let bad = Self.upload([["name": "faq.csv", "content": faq], ["name": "broken.csv", "content": "question,answer\nA?,a\nB?\n"],
                                   ["name": "latin1.txt", "content_base64": Data("caf".utf8 + [0xE9]).base64EncodedString()]])
            try await client.execute(uri: "/api/knowledge/clinic/documents", method: .post, headers: Self.json, body: bad) { response in
                #expect(response.status == .unprocessableContent)
                let body = Self.json(response.body)
                #expect((body["detail"] as? String)?.contains("nothing was stored") == true)
                let errors = (body["errors"] as? [[String: Any]])?.map { "\($0["field"] ?? "")=\($0["message"] ?? "")" }
                #expect(errors == ["documents.1=broken.csv, line 3: the row has 1 fields; the header has 2",
                                   "documents.2=latin1.txt, line 1: the file is not UTF-8 text (save it as UTF-8)"], "\(errors ?? [])")
            }
            #expect(try await h.store.knowledge.collections().isEmpty)

            let good = Self.upload([["name": "faq.csv", "content": faq], ["name": "guide.md", "content": "# Pets\nDogs are welcome in the waiting room."]])
            try await client.execute(uri: "/api/knowledge/clinic/documents", method: .post, headers: Self.json, body: good) { response in
                #expect(response.status == .ok)
                let documents = Self.json(response.body)["documents"] as? [[String: Any]]
                #expect(documents?.map { $0["chunks"] as? Int } == [2, 1] && documents?.first?["kind"] as? String == "faq")
            }
            try await client.execute(uri: "/api/knowledge/clinic/search?q=%EC%A3%BC%EC%B0%A8%EB%8A%94%20%EC%96%B4%EB%94%94%EC%97%90%20%ED%95%98%EB%82%98%EC%9A%94", method: .get) { response in
                let body = Self.json(response.body)   // 주차는 어디에 하나요
                let first = (body["results"] as? [[String: Any]])?.first
                #expect((first?["chunk"] as? [String: Any])?["title"] as? String == "주차장이 있나요?", "\(body)")
                #expect(first?["document"] as? String == "faq.csv")
            }
            try await client.execute(uri: "/api/knowledge/clinic/search?q=when%20are%20you%20open%20on%20weekdays", method: .get) { response in
                #expect(Self.json(response.body)["local_engine_answer"] as? String == "We are open 9 to 6 on weekdays.")
            }
            // A raw PUT replaces the one document.
            try await client.execute(uri: "/api/knowledge/clinic/documents/guide.md", method: .put, headers: [.contentType: "text/markdown"],
                                 body: ByteBuffer(string: "# Pets\nOnly guide dogs, please.")) { response in
                #expect(response.status == .ok)
            }
            try await client.execute(uri: "/api/knowledge/clinic/documents/guide.md", method: .get) { response in
                let chunks = Self.json(response.body)["chunks"] as? [[String: Any]]
                #expect(chunks?.map { $0["text"] as? String } == ["Only guide dogs, please."])
            }
            try await client.execute(uri: "/api/knowledge/clinic/documents/empty.txt", method: .put, headers: [.contentType: "application/octet-stream"], body: ByteBuffer()) { response in
                #expect(response.status == .unprocessableContent)
                #expect(Self.json(response.body)["detail"] as? String == "empty.txt: the file is empty")
            }
            try await client.execute(uri: "/api/knowledge", method: .get) { response in
                let items = Self.json(response.body)["items"] as? [[String: Any]]
                #expect(items?.count == 1 && items?.first?["documents"] as? Int == 2 && items?.first?["chunks"] as? Int == 3)
            }
            try await client.execute(uri: "/api/knowledge/Bad%20Name", method: .get) { response in
                #expect(response.status == .unprocessableContent)
            }
            try await client.execute(uri: "/api/knowledge/clinic/documents/faq.csv", method: .delete) { response in
                #expect(response.status == .noContent)
            }
            try await client.execute(uri: "/api/knowledge/clinic/search?q=opening%20hours", method: .get) { response in
                let documents = (Self.json(response.body)["results"] as? [[String: Any]])?.map { $0["document"] as? String }
                #expect(documents?.contains("faq.csv") == false, "the deleted document's chunks are out of the index: \(documents ?? [])")
            }
            try await client.execute(uri: "/api/knowledge/clinic", method: .delete) { response in
                #expect(response.status == .noContent)
            }
            try await client.execute(uri: "/api/knowledge/clinic", method: .get) { response in
                #expect(response.status == .notFound)
            }
            // A call names collections; a bad name is refused with its field.
            var seed = try JSONSerialization.jsonObject(with: Data(OutboundAPITests.seedBody.utf8)) as! [String: Any]
            seed["knowledge"] = ["clinic", "No Spaces"]
            try await client.execute(uri: "/api/outbound/", method: .post, headers: Self.json, body: ByteBuffer(data: try JSONSerialization.data(withJSONObject: seed))) { response in
                #expect(response.status == .unprocessableContent)
                #expect((Self.json(response.body)["errors"] as? [[String: Any]])?.map { $0["field"] as? String } == ["knowledge.1"])
            }
            seed["knowledge"] = ["clinic"]
            var id = ""
            try await client.execute(uri: "/api/outbound/", method: .post, headers: Self.json, body: ByteBuffer(data: try JSONSerialization.data(withJSONObject: seed))) { response in
                #expect(response.status == .accepted)
                id = Self.json(response.body)["outbound_id"] as? String ?? ""
            }
            #expect(try await h.store.call(id: id)?.knowledge == ["clinic"])
            // A line that only answers from its collections has no questions of its own; without collections, that is refused.
            try await client.execute(uri: "/api/templates", method: .post, headers: Self.json,
                                     body: ByteBuffer(string: #"{"name":"clinic-line","purpose":"the front desk","questions":[],"knowledge":["clinic"]}"#)) { response in
                #expect(response.status == .created, "\(String(buffer: response.body))")
            }
            try await client.execute(uri: "/api/templates", method: .post, headers: Self.json,
                                     body: ByteBuffer(string: #"{"name":"empty","purpose":"nothing","questions":[]}"#)) { response in
                #expect(response.status == .unprocessableContent)
            }
        }
    }
}
