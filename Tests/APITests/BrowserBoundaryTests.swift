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

    /// Review 2, finding 7: an Origin must be this server's own — the scheme, host and port the
    /// request came to, or http.public_url's — not any loopback origin on any port.
    @Test func anOriginIsThisServersOwnNotAnyLocalPort() {
        var config = VoiceBridgeConfig()
        config.http.publicURL = "https://voice.example.com"
        let boundary = BrowserBoundary(config: config)
        for (authority, origin) in [("127.0.0.1:8080", "http://127.0.0.1:8080"), ("localhost:8080", "http://localhost:8080"), ("[::1]:8080", "http://[::1]:8080"),
                                    ("127.0.0.1", "http://127.0.0.1"), ("127.0.0.1:8080", "https://voice.example.com"), ("voice.example.com", "https://voice.example.com"),
                                    ("127.0.0.1:8080", "ws://127.0.0.1:8080"), ("127.0.0.1:8080", "ws://127.0.0.1")] {
            #expect(boundary.problem(authority: authority, origin: origin) == nil, "\(authority) \(origin)")
        }
        for (authority, origin) in [("127.0.0.1:8080", "http://127.0.0.1:3000"), ("127.0.0.1:8080", "http://localhost:8080"), ("127.0.0.1:8080", "http://127.0.0.1"),
                                    ("127.0.0.1:8080", "https://voice.example.com:8443"), ("127.0.0.1:8080", "http://voice.example.com"),
                                    ("127.0.0.1:8080", "http://127.0.0.1:8080/x"), ("127.0.0.1:8080", "http://user@127.0.0.1:8080")] {
            #expect(boundary.problem(authority: authority, origin: origin)?.status == 403, "\(authority) \(origin)")
        }
    }

    /// The router reads //api/x as /api/x; a rule for /api/ must not be skipped that way.
    @Test func aPathNotInItsPlainFormIsRefused() {
        for path in ["//api/webhooks", "/api//webhooks", "/./api/webhooks", "/x/../api/webhooks", "/api/%2fwebhooks", "/api%2Fwebhooks", "/api/.%2e/x", "/api\\webhooks"] {
            #expect(BrowserBoundary.pathProblem(path)?.status == 400, "\(path)")
        }
        for path in ["/", "/api/webhooks", "/api/outbound/ob-1234abcd?x=//y", "/app.js", "/api/knowledge/faq/documents/a.b.csv"] {
            #expect(BrowserBoundary.pathProblem(path) == nil, "\(path)")
        }
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
