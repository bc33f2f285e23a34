import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import TestSupport
@testable import API
@testable import Calls

/// `/api/webhooks` in process: what is refused and why, what changes, what is shown. Deliveries to a
/// real receiver are Tests/e2e/suite-webhooks.sh.
@Suite struct WebhookAPITests {
    static func send(_ client: some TestClientProtocol, _ method: HTTPRequest.Method, _ uri: String, _ body: String? = nil) async throws -> (Int, [String: Any]) {
        try await client.execute(uri: uri, method: method, headers: [.contentType: "application/json"], body: body.map { ByteBuffer(string: $0) }) { response in
            (Int(response.status.code), OutboundAPITests.json(response.body))
        }
    }

    @Test(arguments: StoreBackend.allCases) func endpointsAreValidatedChangedAndDeleted(database: StoreBackend) async throws {
        let h = try await OutboundAPITests.harness(database: database)
        try await h.app.test(.router) { client in
            var (status, body) = try await Self.send(client, .post, "/api/webhooks", #"{"events":["call.completed"]}"#)
            #expect(status == 422 && (body["detail"] as? String)?.contains("url") == true)
            (status, body) = try await Self.send(client, .post, "/api/webhooks", #"{"url":"https://crm.example.com/h","events":["call.finished"]}"#)
            #expect(status == 422 && (body["detail"] as? String)?.contains("unknown event 'call.finished'") == true, "\(body)")
            (status, body) = try await Self.send(client, .post, "/api/webhooks", #"{"url":"https://crm.example.com/h","events":["call.failed"],"description":"CRM"}"#)
            #expect(status == 201 && (body["secret"] as? String)?.hasPrefix("whsec_") == true && body["events"] as? [String] == ["call.failed"])
            let id = try #require(body["id"] as? String)
            (status, body) = try await Self.send(client, .patch, "/api/webhooks/\(id)", #"{"enabled":false,"events":[]}"#)
            #expect(status == 200 && body["enabled"] as? Bool == false && body["events"] as? [String] == [])
            (status, body) = try await Self.send(client, .patch, "/api/webhooks/\(id)", #"{"url":"ftp://crm.example.com"}"#)
            #expect(status == 422, "\(body)")
            (status, body) = try await Self.send(client, .get, "/api/webhooks/\(id)/deliveries?state=sent")
            #expect(status == 422)
            (status, body) = try await Self.send(client, .get, "/api/webhooks/\(id)/deliveries")
            #expect(status == 200 && (body["items"] as? [Any])?.isEmpty == true)
            (status, _) = try await Self.send(client, .post, "/api/webhooks/\(id)/deliveries/msg_nothing/replay")
            #expect(status == 404)
            (status, _) = try await Self.send(client, .delete, "/api/webhooks/\(id)")
            #expect(status == 204)
            (status, _) = try await Self.send(client, .get, "/api/webhooks/\(id)")
            #expect(status == 404)
        }
    }

    @Test(arguments: StoreBackend.allCases) func aCallsDetailListsItsDeliveriesAndATurnedOffEndpointIsNotReplayed(database: StoreBackend) async throws {
        let h = try await OutboundAPITests.harness(database: database)
        try await h.store.webhooks.create(WebhookEndpoint(id: "wh_00000001", url: "http://127.0.0.1:9/x"))
        try await h.app.test(.router) { client in
            var (_, body) = try await Self.send(client, .post, "/api/outbound/", OutboundAPITests.seedBody)
            let call = try #require(body["outbound_id"] as? String)
            try await client.execute(uri: "/api/outbound/\(call)/cancel", method: .post) { _ in }
            (_, body) = try await Self.send(client, .get, "/api/outbound/\(call)")
            let delivery = try #require((body["webhooks"] as? [[String: Any]])?.first)
            #expect(delivery["event_type"] as? String == "call.cancelled" && delivery["endpoint_id"] as? String == "wh_00000001")
            let id = try #require(delivery["id"] as? String)
            _ = try await Self.send(client, .patch, "/api/webhooks/wh_00000001", #"{"enabled":false}"#)
            let (status, problem) = try await Self.send(client, .post, "/api/webhooks/wh_00000001/deliveries/\(id)/replay")
            #expect(status == 409 && (problem["detail"] as? String)?.contains("turned off") == true)
        }
    }
}
