import Foundation
import Testing
@testable import Calls

/// `voicebridge serve --list-keys` and docs/reference/configuration.md come from what the reader
/// records as it reads: each key once, in reading order, with its kind and default as the code
/// holds them, whatever the file sets.
@Suite struct ConfigKeyDefinitionTests {
    @Test func eachKeyIsDefinedOnceWithItsKindDefaultAndVariables() throws {
        let source = try ConfigSource(yaml: "http: {port: 9090}\nsip: {transport: tcp, gateway: \"sip:trunk.example.com\"}\n")
        let definitions = try VoiceBridgeConfig.keyDefinitions(source: source)
        let byKey = Dictionary(grouping: definitions, by: \.key)
        #expect(byKey.values.allSatisfy { $0.count == 1 }, "\(byKey.filter { $0.value.count > 1 }.keys.sorted())")
        #expect(definitions.first?.key == "http.host")

        // The default is the code's, not the file's 9090.
        #expect(byKey["http.port"]?.first == ConfigKeyDefinition(key: "http.port", environment: ["VOICEBRIDGE_HTTP_PORT"],
                                                                 kind: "whole number, 0 to 65535", defaultValue: "8080"))
        #expect(byKey["sip.transport"]?.first?.kind == "one of udp, tcp, tls")
        #expect(byKey["api.tokens"]?.first?.environment == ["VOICEBRIDGE_API_TOKENS", "VOICEBRIDGE_API_TOKEN"])
        #expect(byKey["api.tokens"]?.first?.kind == "list")
        #expect(byKey["http.public_url"]?.first?.defaultValue == "none")
        #expect(byKey["cluster.node_id"]?.first?.defaultValue == "\"\"")
        #expect(byKey["outbound.retry.enabled"]?.first?.kind == "true or false")
        #expect(byKey["cluster.lease_seconds"]?.first?.kind == "number, 3 to 3600" && byKey["cluster.lease_seconds"]?.first?.defaultValue == "15")
        #expect(byKey["inbound.routes"]?.first?.kind == "map: one entry per name" && byKey["inbound.routes"]?.first?.environment == [])
    }

    /// A map of operator-named entries lists its entries' keys for the names the source holds.
    @Test func aMapsEntriesAreDefinedForTheNamesInTheSource() throws {
        let source = try ConfigSource(yaml: """
            webhooks:
              endpoints:
                crm: {url: "https://crm.example.com/hook", secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", events: [call.completed]}
            """)
        let keys = try VoiceBridgeConfig.keyDefinitions(source: source).map(\.key)
        #expect(keys.contains("webhooks.endpoints") && keys.contains("webhooks.endpoints.crm.url") && keys.contains("webhooks.endpoints.crm.events"))
        #expect(!keys.contains { $0.hasPrefix("inbound.routes.") })
    }

    /// An empty map is written, so a misspelt one is refused like any unknown key.
    @Test func anEmptyMapIsAWrittenKey() throws {
        #expect(try ConfigSource(yaml: "secrets: {}\n").writtenKeys.contains("secrets"))
        #expect(throws: ConfigError.self) { try VoiceBridgeConfig(source: ConfigSource(yaml: "secretz: {}\n")) }
        _ = try VoiceBridgeConfig(source: ConfigSource(yaml: "secrets: {}\ninbound: {routes: {}}\n"))
    }
}
