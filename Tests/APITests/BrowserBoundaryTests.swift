import Foundation
import Hummingbird
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import API
@testable import Calls

/// A page in the operator's browser cannot use the server: foreign Host, foreign Origin and
/// preflight-free body types are refused; every response forbids framing and sniffing.
@Suite struct BrowserBoundaryTests {
    @Test func onlyHostsThisServerAnswersToAreServed() {
        var config = VoiceBridgeConfig()
        config.http.publicURL = "https://voice.example.com"
        config.http.allowedHosts = ["pbx.lan"]
        let boundary = BrowserBoundary(config: config)
        for host in ["127.0.0.1:8080", "localhost", "[::1]:8080", "voice.example.com", "VOICE.example.com.", "pbx.lan:8080"] {
            #expect(boundary.problem(authority: host, origin: nil) == nil, "\(host)")
        }
        for host in ["evil.example", "127.0.0.1.evil.example:8080", "voice.example.com.evil.example", "10.0.0.1"] {
            #expect(boundary.problem(authority: host, origin: nil)?.status == 421, "\(host)")
        }
        #expect(boundary.problem(authority: "127.0.0.1:8080", origin: "https://voice.example.com") == nil)
        #expect(boundary.problem(authority: "127.0.0.1:8080", origin: "https://evil.example")?.status == 403)
        #expect(boundary.problem(authority: "127.0.0.1:8080", origin: "null")?.status == 403)
    }

    @Test func crossOriginRequestsAndSimpleBodyTypesAreRefusedOnTheAPI() async throws {
        let h = try await OutboundAPITests.harness()
        try await h.app.test(.router) { client in
            try await client.execute(uri: "/api/outbound/", method: .get, headers: [.origin: "https://evil.example"]) { response in
                #expect(response.status == .forbidden)
            }
            try await client.execute(uri: "/api/outbound/", method: .get, headers: [.origin: "http://localhost:8080"]) { response in
                #expect(response.status == .ok)
            }
            for type in ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", nil] {
                var headers: HTTPFields = [:]
                if let type { headers[.contentType] = type }
                try await client.execute(uri: "/api/outbound/", method: .post, headers: headers, body: ByteBuffer(string: OutboundAPITests.seedBody)) { response in
                    #expect(response.status == .unsupportedMediaType, "\(type ?? "no type")")
                }
            }
            try await client.execute(uri: "/api/outbound/", method: .get) { response in
                #expect(!String(buffer: response.body).contains("outbound_id"), "nothing was created")
            }
        }
    }

    @Test func everyResponseForbidsFramingSniffingAndForeignScripts() async throws {
        let server = try HealthAndShutdownTests.makeServer()
        try await Application(router: server.router()).test(.router) { client in
            for uri in ["/", "/app.js", "/api/no-such-route"] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.headers[.contentSecurityPolicy]?.contains("default-src 'self'") == true, "\(uri)")
                    #expect(response.headers[HTTPField.Name("X-Frame-Options")!] == "DENY", "\(uri)")
                    #expect(response.headers[.xContentTypeOptions] == "nosniff", "\(uri)")
                }
            }
        }
    }
}
