import Foundation
import Testing
@testable import Tools

@Suite struct ToolDefinitionTests {
    @Test func aDeclarationInTheAPIsSpellingDecodesWithDefaults() throws {
        let json = #"""
        [{"name":"book_slot","description":"Book a slot.","url":"https://crm.example.com/book","method":"post",
          "parameters":{"type":"object","properties":{"date":{"type":"string","description":"YYYY-MM-DD"}},"required":["date"]},
          "headers":{"Authorization":"Bearer ${secret:crm_token}"},"timeout_ms":3000,"speak_while_waiting":"Let me check that slot."}]
        """#
        let tools = try JSONDecoder().decode([ToolDefinition].self, from: Data(json.utf8))
        #expect(tools[0].method == "POST" && tools[0].timeoutMilliseconds == 3000 && tools[0].onEnd == false)
        #expect(ToolDefinition.problems(in: tools, secrets: ToolSecrets(configured: ["crm_token": "x"])).isEmpty)
        let minimal = try JSONDecoder().decode(ToolDefinition.self, from: Data(#"{"name":"ping","description":"Ping.","url":"http://127.0.0.1/p"}"#.utf8))
        #expect(minimal.method == "POST" && minimal.timeoutMilliseconds == 5000 && minimal.parameters["type"] == .string("object"))
    }

    @Test func everyProblemIsNamedWithItsField() throws {
        let bad = [
            ToolDefinition(name: "end_call", description: "Mine.", url: "https://x.example/"),
            ToolDefinition(name: "has space", description: "", url: "ftp://x.example/", method: "TRACE"),
            ToolDefinition(name: "slow", description: "Slow.", url: "https://x.example/${secret:k}", headers: ["Bad Header": "v", "X-Key": "${secret:nope}"],
                           timeoutMilliseconds: 60_000, speakWhileWaiting: ""),
            ToolDefinition(name: "slow", description: "Again.", parameters: try JSONValue.parse(##"{"type":"object","properties":{"a":{"$ref":"#/x"}}}"##), url: "https://x.example/"),
            ToolDefinition(name: "arr", description: "Array.", parameters: try JSONValue.parse(#"{"type":"array"}"#), url: "https://x.example/"),
            ToolDefinition(name: "crm_write", description: "After the call.", url: "https://x.example/", method: "GET", onEnd: true),
        ]
        let problems = ToolDefinition.problems(in: bad, secrets: ToolSecrets(configured: ["k": "v"])).map(\.description)
        let expected = [
            "tools.0.name is one of the agent's own tools",
            "tools.1.name must be 1 to 64 letters, digits, _ or -",
            "tools.1.description must be 1 to 1024 characters: the model decides from it when to call the tool",
            "tools.1.url must be an absolute http:// or https:// URL",
            "tools.1.method must be one of GET, POST, PUT, PATCH, DELETE",
            "tools.2.url may not hold secrets: put them in a header",
            "tools.2.headers.Bad Header is not an HTTP header name",
            "tools.2.headers.X-Key names the secret 'nope', which is not configured (secrets: in the configuration, or VOICEBRIDGE_SECRET_NOPE)",
            "tools.2.timeout_ms must be between 100 and 30000",
            "tools.2.speak_while_waiting must be 1 to 200 characters",
            "tools.3.parameters.properties.a.$ref is not supported (supported: additionalProperties, const, enum, items, maxItems, maxLength, maximum, minItems, minLength, minimum, pattern, properties, required, type)",
            "tools.3.name is declared twice",
            "tools.4.parameters must be a JSON Schema object with \"type\": \"object\"",
            "tools.5.method an on_end tool sends the call's result as its body: use POST, PUT or PATCH",
        ]
        #expect(problems == expected)
    }

    @Test func secretsComeFromTheConfigurationThenTheEnvironment() throws {
        let secrets = ToolSecrets(configured: ["crm_token": "from-config"], environment: ["VOICEBRIDGE_SECRET_SHOP_KEY": "from-env", "HOME": "/root"])
        #expect(try SecretReference.resolve("Bearer ${secret:crm_token}; ${secret:shop_key}", in: secrets) == "Bearer from-config; from-env")
        #expect(throws: SecretReference.Missing(name: "home")) { try SecretReference.resolve("${secret:home}", in: secrets) }
        #expect(secrets.masked("from-config and from-env, /root") == "*** and ***, /root", "only secrets are masked")
    }

    @Test func nestedViolationsSayWhere() throws {
        let schema = try JSONSchema(parameters: JSONValue.parse(#"""
        {"type":"object","properties":{"items":{"type":"array","maxItems":2,"items":{"type":"object","properties":{"sku":{"type":"string","minLength":3},"qty":{"type":"integer"}},"required":["sku"]}},
         "kind":{"enum":["pickup","delivery"]}}}
        """#))
        let value = try JSONValue.parse(#"{"items":[{"sku":"ab","qty":1.5},{"qty":2},{"sku":"abc"}],"kind":"mail"}"#)
        #expect(schema.violations(of: value) == [
            "items: must hold at most 2 items",
            "items[0].qty: must be integer, not number",
            "items[0].sku: must be at least 3 characters",
            "items[1].sku: is required",
            #"kind: must be one of "pickup", "delivery""#,
        ])
        #expect(schema.violations(of: try JSONValue.parse(#"{"items":[{"sku":"abc","qty":2.0}],"kind":"pickup"}"#)).isEmpty, "2.0 is an integer")
    }
}
