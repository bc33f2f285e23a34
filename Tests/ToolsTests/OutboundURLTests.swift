import Foundation
import Testing
import Tools

/// Review 2, finding 1: a URL is parsed once, and only a form every parser reads the same way is taken.
@Suite struct OutboundURLTests {
    @Test func theFormsWhereParsersDisagreeAreRefused() {
        let probes = [
            "ws://127.0.0.2:1@8.8.8.8/x",          // userinfo: Foundation's host is 8.8.8.8, a WebSocket client's 127.0.0.2
            "ws://user@bot.example.com/x",
            "http://bot.example.com\\@127.0.0.1/",   // a backslash
            "http://bot.example.com/x#@127.0.0.1",  // a fragment
            "http://bot.example.com/a b",           // a space
            "http://bot.example.com/\u{0}",
            "http://b%6ft.example.com/",            // an escape in the host
            "http://bøt.example.com/",
            "http://[::1/",
            "http://bot.example.com:0/", "http://bot.example.com:65536/", "http://bot.example.com:+80/", "http://bot.example.com:/",
            "http:///x", "http://./", "http://a..b/", "ftp://bot.example.com/", "javascript:alert(1)", "//bot.example.com/",
        ]
        for probe in probes {
            #expect(OutboundURL.problem(probe, schemes: OutboundURL.webSchemes.union(OutboundURL.socketSchemes)) != nil, "\(probe)")
        }
        #expect(OutboundURL.problem("ws://127.0.0.2:1@8.8.8.8/x", schemes: OutboundURL.socketSchemes)?.contains("user name") == true)
        #expect(OutboundURL.problem(String(repeating: "a", count: 3000)) != nil)
    }

    @Test func aPlainURLIsWrittenOutAsItMeans() throws {
        let url = try OutboundURL("HTTPS://CRM.Example.COM./api/v1?x=1&y=%20")
        #expect(url.scheme == "https" && url.host == "crm.example.com" && url.port == 443 && url.explicitPort == nil)
        #expect(url.description == "https://crm.example.com/api/v1?x=1&y=%20")
        let v6 = try OutboundURL("ws://[2001:DB8::1]:8080", schemes: OutboundURL.socketSchemes)
        #expect(v6.host == "2001:db8::1" && v6.port == 8080 && v6.hostIsAddress && v6.description == "ws://[2001:db8::1]:8080/")
        #expect(try OutboundURL("http://10.0.0.1?q").description == "http://10.0.0.1/?q")
        #expect(try OutboundURL("wss://bot.example.com", schemes: OutboundURL.socketSchemes).isSecure)
        // What is written out parses to the same value again, and Foundation reads the same host from it.
        for text in ["https://crm.example.com/a?b=c", "ws://[::1]:9/x", "http://127.0.0.1:8080/", "http://a-b.c_d.example/"] {
            let parsed = try OutboundURL(text, schemes: OutboundURL.webSchemes.union(OutboundURL.socketSchemes))
            #expect(try OutboundURL(parsed.description, schemes: OutboundURL.webSchemes.union(OutboundURL.socketSchemes)) == parsed)
            let foundation = try #require(URL(string: parsed.description))
            #expect(foundation.host?.trimmingCharacters(in: CharacterSet(charactersIn: "[]")) == parsed.host && (foundation.port ?? parsed.port) == parsed.port)
        }
    }
}
