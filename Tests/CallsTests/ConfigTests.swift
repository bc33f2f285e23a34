import Dialogue
import Foundation
import Logging
import NIOCore
import Realtime
import TestSupport
import Testing
import Tools
@testable import Calls

@Suite struct ConfigTests {
    @Test func readBackKindsAreConfigured() throws {
        #expect(try VoiceBridgeConfig(source: ConfigSource(yaml: "http: {port: 8080}")).engine.local.readBack == ReadBack.defaultKinds)
        #expect(try VoiceBridgeConfig(source: ConfigSource(yaml: "engine: {read_back: [phone_number, number]}")).engine.local.readBack == [.phoneNumber, .number])
        #expect(try VoiceBridgeConfig(source: ConfigSource(yaml: "engine: {read_back: none}")).engine.local.readBack.isEmpty)
    }

    @Test func defaultsAreTheDocumentedOnes() throws {
        let c = try VoiceBridgeConfig(source: ConfigSource())
        #expect(c.http.host == "127.0.0.1" && c.http.port == 8080)
        #expect(c.database.path == "./data/voicebridge.sqlite")
        #expect(c.sip.port == 5060 && c.sip.gateway == nil)
        #expect(c.engine.mode == .local && c.engine.vad == .auto)
        #expect(c.outbound.maxConcurrentCalls == 5)
        #expect(c.outbound.ringTimeoutSeconds == 30)
        #expect(c.outbound.maxCallDurationSeconds == 300)
        #expect(c.outbound.retry.maxRetries == 2 && c.outbound.retry.retryIntervalSeconds == 300)
        #expect(c.outbound.retry.retryOn == [.noAnswer, .busy])
        #expect(c.outbound.ai.maxTurns == 20)
    }

    @Test func theExampleFileLoadsAndMatchesTheDefaults() throws {
        let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("config/voicebridge.example.yaml")
        let c = try VoiceBridgeConfig.load(path: example.path, environment: [:])
        #expect(c == (try VoiceBridgeConfig(source: ConfigSource())))
    }

    /// The example file is the reference: every key the server reads is in it (the file holds no
    /// key the server does not read either — that fails loading). Keys under a name of the
    /// operator's choosing (a webhook endpoint, a route) are shown by one example each.
    @Test func theExampleFileNamesEveryKey() throws {
        let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("config/voicebridge.example.yaml")
        let source = try ConfigSource.load(path: example.path, environment: [:])
        var reader = ConfigReader(source)
        _ = try VoiceBridgeConfig(reading: &reader)
        let missing = reader.usedKeys.subtracting(source.writtenKeys).sorted()
        #expect(missing.isEmpty, "keys the server reads that config/voicebridge.example.yaml does not show: \(missing)")
    }

    @Test func readsEverySectionFromYAML() throws {
        let yaml = """
        http: {host: 127.0.0.1, port: 9090, public_url: "https://voice.example.com"}
        database: {path: /tmp/x.sqlite}
        sip:
          bind: 127.0.0.2
          port: 5070
          rtp_port_min: 30000
          rtp_port_max: 30100
          gateway: "sip:gw.example.com:5080"
          username: alice
          password: secret
          allowed_caller_ids: ["0701234", "+8210"]
          rate_limit: {requests_per_second: 5, burst: 8, exempt: [10.0.0.5]}
        engine:
          mode: loopback
          openai: {base_url: "http://127.0.0.1:9999/v1", vad_threshold: 0.7}
        outbound:
          max_concurrent_calls: 3
          ring_timeout: 5
          retry: {max_retries: 1, retry_interval: 2, retry_on: [busy]}
          ai: {max_turns: 8}
          result: {save_recording: false}
        inbound:
          questions: ["Who is calling?"]
        pricing: {currency: KRW, telephony_per_minute: 20, llm_per_million_output_tokens: 800}
        """
        let c = try VoiceBridgeConfig(source: ConfigSource(yaml: yaml))
        #expect(c.pricing.currency == "KRW" && c.pricing.telephonyPerMinute == 20 && c.pricing.llmPerMillionOutputTokens == 800 && c.pricing.sttPerMinute == 0)
        #expect(c.http.port == 9090 && c.http.publicURL == "https://voice.example.com")
        #expect(c.database.path == "/tmp/x.sqlite")
        #expect(c.sip.bind == "127.0.0.2" && c.sip.port == 5070 && c.sip.rtpPortMin == 30000)
        #expect(c.sip.gateway == "sip:gw.example.com:5080" && c.sip.username == "alice")
        #expect(c.sip.allowedCallerIDs == ["0701234", "+8210"])
        #expect(c.sip.rateLimitPerSecond == 5 && c.sip.rateLimitBurst == 8 && c.sip.rateLimitExempt == ["10.0.0.5"])
        #expect(c.engine.mode == .loopback && c.engine.openAI.vadThreshold == 0.7)
        #expect(c.engine.cascade.llmBaseURL == "http://127.0.0.1:9999/v1", "cascade LLM follows the OpenAI base URL")
        #expect(c.outbound.maxConcurrentCalls == 3 && c.outbound.ringTimeoutSeconds == 5)
        #expect(c.outbound.retry.retryOn == [.busy] && c.outbound.retry.maxRetries == 1)
        #expect(c.outbound.ai.maxTurns == 8 && !c.outbound.result.saveRecording)
        #expect(c.inbound.questions == ["Who is calling?"])
    }

    @Test func environmentOverridesTheFileUnderTheDocumentedNames() throws {
        let yaml = "http: {port: 9090}\nsip: {port: 5070}\nengine: {mode: local}\n"
        let env = [
            "VOICEBRIDGE_HTTP_HOST": "localhost",
            "VOICEBRIDGE_HTTP_PORT": "8181",
            "VOICEBRIDGE_DATABASE_PATH": "/tmp/env.sqlite",
            "VOICEBRIDGE_SIP_BIND": "127.0.0.3",
            "VOICEBRIDGE_SIP_PORT": "5099",
            "VOICEBRIDGE_SIP_GATEWAY": "sip:127.0.0.1:5090",
            "VOICEBRIDGE_ENGINE_MODE": "echo",
            "VOICEBRIDGE_API_TOKEN": "t0ken-0123456789abcdef",
            "VOICEBRIDGE_OUTBOUND_RETRY_RETRY_ON": "no_answer, failed",
            "VOICEBRIDGE_OUTBOUND_MAX_CONCURRENT_CALLS": "9",
            "OPENAI_API_KEY": "sk-test",
            "OPENAI_BASE_URL": "http://127.0.0.1:1/v1",
            "DEEPGRAM_API_KEY": "dg-test",
            "TWILIO_AUTH_TOKEN": "tw-test",
        ]
        let c = try VoiceBridgeConfig(source: ConfigSource(yaml: yaml, environment: env))
        #expect(c.http.host == "localhost" && c.http.port == 8181)
        #expect(c.database.path == "/tmp/env.sqlite")
        #expect(c.sip.bind == "127.0.0.3" && c.sip.port == 5099 && c.sip.gateway == "sip:127.0.0.1:5090")
        // A configured gateway gets no call's script unless it is said to be a simulated callee.
        #expect(!c.sip.gatewayIsSimulatedCallee)
        var simulated = env
        simulated["VOICEBRIDGE_SIP_GATEWAY_IS_SIMULATED_CALLEE"] = "true"
        #expect(try VoiceBridgeConfig(source: ConfigSource(yaml: yaml, environment: simulated)).sip.gatewayIsSimulatedCallee)
        #expect(c.engine.mode == .echo)
        #expect(c.api.tokens == ["t0ken-0123456789abcdef"])
        #expect(c.outbound.retry.retryOn == [.noAnswer, .failed])
        #expect(c.outbound.maxConcurrentCalls == 9)
        #expect(c.engine.openAI.apiKey == "sk-test" && c.engine.openAI.baseURL == "http://127.0.0.1:1/v1")
        #expect(c.engine.deepgram.apiKey == "dg-test" && c.twilio.authToken == "tw-test")
    }

    @Test func theStorageKeyComesInlineFromTheEnvironmentOrFromAFile() throws {
        let key = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("vb-key-\(UUID().uuidString)").path
        try (key + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let fromFile = try VoiceBridgeConfig(source: ConfigSource(yaml: "storage: {encryption_key_file: \(file)}"))
        #expect(fromFile.storage.encryptionKey == Data(base64Encoded: key) && fromFile.storage.cipher?.currentKeyID == StorageCipher.keyID(of: Data(base64Encoded: key)!))
        let fromEnvironment = try VoiceBridgeConfig(source: ConfigSource(environment: [
            "VOICEBRIDGE_STORAGE_ENCRYPTION_KEY": key, "VOICEBRIDGE_STORAGE_PREVIOUS_ENCRYPTION_KEYS": Data(repeating: 9, count: 32).base64EncodedString()]))
        #expect(fromEnvironment.storage.cipher?.keyIDs.count == 2)
        #expect(try VoiceBridgeConfig(source: ConfigSource()).storage.cipher == nil, "no key: nothing is sealed")
        // A wrong value is never echoed: it is meant to be a secret.
        do { _ = try VoiceBridgeConfig(source: ConfigSource(yaml: "storage: {encryption_key: s3cr3t-passphrase}")) } catch {
            #expect(!"\(error)".contains("s3cr3t"))
        }
    }

    /// Review 2, finding 5: every secret names the hosts it may be sent to; the form without them
    /// is refused with the form to write.
    @Test func aSecretNamesItsHosts() throws {
        let config = try VoiceBridgeConfig(source: ConfigSource(yaml: """
        secrets:
          crm_token: {value: "crm-value-1", hosts: [crm.example.com, "*.crm.example.net"]}
          shop_key: {hosts: [api.shop.example]}
        """, environment: ["VOICEBRIDGE_SECRET_SHOP_KEY": "from-the-environment"]))
        #expect(config.secrets["crm_token"] == ToolSecret(value: "crm-value-1", hosts: ["crm.example.com", "*.crm.example.net"]))
        let secrets = ToolSecrets(configured: config.secrets, environment: ["VOICEBRIDGE_SECRET_SHOP_KEY": "from-the-environment"])
        #expect(try secrets.value("shop_key", for: "api.shop.example").get() == "from-the-environment")
        let refusals: [(String, String)] = [
            ("secrets: {crm_token: \"plain-value\"}", "secrets.crm_token"),
            ("secrets: {crm_token: {value: \"v-1234\"}}", "secrets.crm_token.hosts"),
            ("secrets: {crm_token: {value: \"v-1234\", hosts: [\"crm example\"]}}", "secrets.crm_token.hosts"),
            ("secrets: {crm_token: {value: \"abc\", hosts: [crm.example.com]}}", "secrets.crm_token.value"),
        ]
        for (yaml, key) in refusals {
            #expect(throws: ConfigError.self, "\(yaml)") { try VoiceBridgeConfig(source: ConfigSource(yaml: yaml)) }
            do { _ = try VoiceBridgeConfig(source: ConfigSource(yaml: yaml)) } catch let error as ConfigError { #expect(error.key == key, "\(yaml): \(error)") }
        }
    }

    /// Each kind of invalid input names its key.
    @Test(arguments: [
        ("http: {port: eighty}", "http.port", "whole number"),
        ("http: {port: 70000}", "http.port", "between 0 and 65535"),
        ("engine: {mode: magic}", "engine.mode", "one of local, realtime, cascade, echo, loopback, stream"),
        ("engine: {mode: stream}", "engine.stream.url", "no bot URL"),
        ("engine: {stream: {url: 'http://bot.example.com'}}", "engine.stream.url", "ws:// or wss://"),
        ("inbound: {routes: {'+15550100': {bot_url: 'bot.example.com'}}}", "inbound.routes.+15550100.bot_url", "ws:// or wss://"),
        ("engine: {stream: {url: 'wss://10.0.0.7/bot'}}", "engine.stream.url", "needs a host name"),
        ("inbound: {routes: {'+15550100': {bot: 'ws://x'}}}", "inbound.routes.+15550100.bot", "unknown key"),
        ("inbound: {routes: {office: {bot_url: 'ws://x'}}}", "inbound.routes.office", "called number"),
        ("engine: {vad: webrtc}", "engine.vad", "one of auto, energy, neural"),
        ("webhooks: {endpoints: {crm: {url: 'https://crm.example.com/h', secret: 'hunter2'}}}", "webhooks.endpoints.crm", "whsec_"),
        ("webhooks: {endpoints: {crm: {url: 'crm.example.com'}}}", "webhooks.endpoints.crm", "http:// or https://"),
        ("webhooks: {endpoints: {crm: {url: 'https://crm.example.com/h', secret: 'whsec_dm9pY2VicmlkZ2UtZGVtby1rZXktMDEyMzQ1Njc4OSE=', events: [call.done]}}}", "webhooks.endpoints.crm", "unknown event 'call.done'"),
        ("webhooks: {retry_schedule_seconds: [5, soon]}", "webhooks.retry_schedule_seconds", "'soon'"),
        ("transfer: {target: 'the front desk'}", "transfer.target", "phone number"),
        ("transfer: {target: 'sip:'}", "transfer.target", "sip:user@host"),
        ("transfer: {allowed_targets: ['12a*']}", "transfer.allowed_targets", "number prefix"),
        ("transfer: {briefing: llm}", "transfer.briefing", "one of auto, scripted"),
        ("engine: {turn_detection: smart}", "engine.turn_detection", "one of auto, pause, model"),
        ("engine: {turn_threshold: 1.5}", "engine.turn_threshold", "between"),
        ("engine: {read_back: [phone_number, yes_no]}", "engine.read_back", "'yes_no' is not a kind that is read back"),
        ("engine: {local: {answer_confidence: 1.5}}", "engine.local.answer_confidence", "calibrated or a number from 0 to 1, got 1.5"),
        ("engine: {local: {answer_confidence: sure}}", "engine.local.answer_confidence", "calibrated or a number from 0 to 1"),
        ("barge_in: {min_ms: 50}", "barge_in.min_ms", "between"),
        ("barge_in: {min_words: none}", "barge_in.min_words", "a whole number"),
        ("transfer: {accept_by_voice: maybe}", "transfer.accept_by_voice", "true or false"),
        ("egress: {allow: ['10.0.0.0/33']}", "egress.allow", "address/length"),
        ("egress: {allow: [intranet]}", "egress.allow", "'intranet'"),
        ("pricing: {telephony_per_minute: -1}", "pricing.telephony_per_minute", "between"),
        ("outbound: {retry: {retry_on: [busy, sometimes]}}", "outbound.retry.retry_on", "'sometimes'"),
        ("outbound: {result: {save_recording: maybe}}", "outbound.result.save_recording", "true or false"),
        ("sip: {gateway: 'gw.example.com'}", "sip.gateway", "sip:host"),
        ("sip: {rtp_port_min: 30000, rtp_port_max: 20000}", "sip.rtp_port_max", "above sip.rtp_port_min"),
        ("sip: {rate_limit: {exempt: [kamailio.local]}}", "sip.rate_limit.exempt", "IP addresses"),
        ("sip: {rate_limit: {requests_per_second: -1}}", "sip.rate_limit.requests_per_second", "between"),
        ("outbound: {max_concurent_calls: 3}", "outbound.max_concurent_calls", "unknown key"),
        ("http: {host: 0.0.0.0}", "http.host", "not a loopback address"),
        ("http: {host: 127.evil.example}", "http.host", "not a loopback address"),
        ("http: {host: 0.0.0.0}\napi: {tokens: ['']}", "api.tokens", "an empty token"),
        ("api: {tokens: [a]}", "api.tokens", "at least 16 characters"),
        ("api: {tokens: ['sixteen chars ok']}", "api.tokens", "no spaces"),
        ("engine: {mode: realtime}", "engine.openai.api_key", "no OpenAI key"),
        ("http: {public_url: 'voice.example.com'}", "http.public_url", "http(s) URL"),
        ("telemetry: {otlp_endpoint: 'collector:4318'}", "telemetry.otlp_endpoint", "OTLP/HTTP traces URL"),
        ("telemetry: {service_name: ''}", "telemetry.service_name", "must not be empty"),
        ("http: [1, 2]", "http", "unknown key"),
        ("http: {port: [1, 2]}", "http.port", "whole number"),
        ("sip: {bind: {a: 1}}", "sip.bind.a", "unknown key"),
        ("http: {port: 8080\n", "(file)", "not valid YAML"),
        ("storage: {encryption_key: c2hvcnQ=}", "storage.encryption_key", "32 random bytes in base64"),
        ("storage: {encryption_key: 'not base64!'}", "storage.encryption_key", "openssl rand -base64 32"),
        ("storage: {previous_encryption_keys: [AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=]}", "storage.previous_encryption_keys", "need a current one"),
        ("storage: {encryption_key: AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=, encryption_key_file: /k}", "storage.encryption_key_file", "not both"),
        ("storage: {encryption_key_file: /nonexistent/vb.key}", "storage.encryption_key_file", "cannot read"),
        ("sip: {transport: sctp}", "sip.transport", "udp, tcp, tls"),
        ("sip: {srtp: maybe}", "sip.srtp", "off, optional, required"),
        ("sip: {transport: tls, gateway: 'sip:192.0.2.1'}", "sip.tls_certificate", "required with sip.transport: tls"),
        ("sip: {transport: tls, gateway: 'sip:192.0.2.1', tls_certificate: /nonexistent/cert.pem}", "sip.tls_certificate", "cannot read"),
        ("sip: {transport: tcp}", "sip.gateway", "simulated callee speaks UDP"),
        ("audiosocket: {listen: '0.0.0.0:9092'}", "audiosocket.allowed_peers", "carries no credential"),
        ("audiosocket: {listen: '9092', allowed_peers: [10.0.0.5]}", "audiosocket.listen", "not host:port"),
        ("audiosocket: {listen: 'pbx.local:9092', allowed_peers: [10.0.0.5]}", "audiosocket.listen", "not an IP address to listen on"),
        ("audiosocket: {allowed_peers: [pbx.local]}", "audiosocket.allowed_peers", "'pbx.local' is not an address or a block"),
    ] as [(String, String, String)])
    func invalidConfigNamesTheKey(yaml: String, key: String, problem: String) {
        do {
            _ = try VoiceBridgeConfig(source: ConfigSource(yaml: yaml))
            Issue.record("accepted invalid config: \(yaml)")
        } catch let error as ConfigError {
            #expect(error.key == key, "\(error)")
            #expect(error.description.contains(problem), "\(error)")
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    /// The answer-confidence floor: calibrated by default and when said so, one number for every kind when given.
    @Test func theAnswerConfidenceFloorIsCalibratedOrOneNumber() throws {
        #expect(try VoiceBridgeConfig(source: ConfigSource(yaml: "")).engine.local.answerConfidence == AnswerConfidence())
        #expect(try VoiceBridgeConfig(source: ConfigSource(yaml: "engine: {local: {answer_confidence: calibrated}}")).engine.local.answerConfidence == AnswerConfidence())
        let fixed = try VoiceBridgeConfig(source: ConfigSource(yaml: "engine: {local: {answer_confidence: 0.4}}")).engine.local.answerConfidence
        #expect(fixed.floor == 0.4)
        #expect(try VoiceBridgeConfig(source: ConfigSource(yaml: "engine: {local: {answer_confidence: 0}}")).engine.local.answerConfidence == .off)
    }

    @Test func sipOverTLSWithSRTPIsReadWithItsFiles() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("vb-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let (cert, key) = (folder.appendingPathComponent("c.pem").path, folder.appendingPathComponent("k.pem").path)
        for path in [cert, key] { try "pem".write(toFile: path, atomically: true, encoding: .utf8) }
        let config = try VoiceBridgeConfig(source: ConfigSource(yaml: """
            sip: {transport: TLS, srtp: required, gateway: 'sip:192.0.2.1', tls_certificate: \(cert), tls_private_key: \(key)}
            """))
        #expect(config.sip.transport == .tls && config.sip.srtp == .required)
        #expect(config.sip.tlsFiles == .init(certificateChain: cert, privateKey: key, trustedAuthorities: nil))
        let defaults = try VoiceBridgeConfig(source: ConfigSource())
        #expect(defaults.sip.transport == .udp && defaults.sip.srtp == .off && defaults.sip.tlsFiles == nil)
    }

    @Test func inboundRoutesAreReadByCalledNumber() throws {
        let c = try VoiceBridgeConfig(source: ConfigSource(yaml: """
        inbound:
          routes:
            "+1 555 0100": {bot_url: "wss://bot.example.com/twilio"}
            "+15550101": {template: dental, display_name: "Dr. Kim", questions: [When?]}
        """))
        #expect(c.inbound.routes.count == 2)
        #expect(c.inbound.route(for: "15550100")?.botURL == "wss://bot.example.com/twilio")
        #expect(c.inbound.route(for: "+15550101")?.template == "dental" && c.inbound.route(for: "+15550101")?.questions == ["When?"])
        #expect(c.inbound.route(for: "+15550199") == nil && c.inbound.route(for: "") == nil)
    }

    /// AudioSocket listens where it is told, for the peers listed; no one else is let in.
    @Test func audioSocketListensForItsPeersOnly() throws {
        let c = try VoiceBridgeConfig(source: ConfigSource(yaml: "audiosocket: {listen: '[::1]:9092', allowed_peers: [10.0.0.5, 192.168.7.0/24]}"))
        #expect(c.audioSocket.listen == .init(host: "::1", port: 9092))
        let at = { (host: String) in try SocketAddress(ipAddress: host, port: 40000) }
        #expect(try c.audioSocket.allows(at("10.0.0.5")) && c.audioSocket.allows(at("192.168.7.200")))
        #expect(try !c.audioSocket.allows(at("10.0.0.6")) && !c.audioSocket.allows(at("127.0.0.1")))
        #expect(try VoiceBridgeConfig(source: ConfigSource(yaml: "")).audioSocket.listen == nil, "off by default")
        #expect(!c.audioSocket.requireBinding, "unannounced UUIDs are calls from unknown by default")
        let bound = try VoiceBridgeConfig(source: ConfigSource(yaml: "audiosocket: {listen: '127.0.0.1:9092', allowed_peers: [127.0.0.1], require_binding: true}"))
        #expect(bound.audioSocket.requireBinding)
    }

    @Test func webhookEndpointsAreReadByName() throws {
        let c = try VoiceBridgeConfig(source: ConfigSource(yaml: """
        webhooks:
          endpoints:
            crm: {url: "https://crm.example.com/hooks", secret: "whsec_dm9pY2VicmlkZ2UtZGVtby1rZXktMDEyMzQ1Njc4OSE=", events: [call.completed]}
          retry_schedule_seconds: [0.5, 2]
          timeout_seconds: 3
        """))
        #expect(c.webhooks.endpoints == [.init(name: "crm", url: "https://crm.example.com/hooks", secret: "whsec_dm9pY2VicmlkZ2UtZGVtby1rZXktMDEyMzQ1Njc4OSE=",
                                               events: ["call.completed"])])
        #expect(c.webhooks.retrySchedule == [0.5, 2] && c.webhooks.timeoutSeconds == 3 && c.webhooks.concurrency == 4)
        #expect(c.webhooks.storedEndpoints.map(\.id) == ["crm"] && c.webhooks.storedEndpoints[0].fromConfig)
    }

    /// `database.url` (or VOICEBRIDGE_DATABASE_URL) selects PostgreSQL in place of the file; a
    /// malformed one stops the server naming the key, without repeating a password.
    @Test func aPostgreSQLURLReplacesTheFileAndABadOneIsNamed() throws {
        let c = try VoiceBridgeConfig(source: ConfigSource(environment: [
            "VOICEBRIDGE_DATABASE_URL": "postgres://vb:s3cret@db.internal:5432/voicebridge",
            "VOICEBRIDGE_DATABASE_RECORDINGS_FOLDER": "/shared/recordings",
        ]))
        #expect(c.database.location == "postgres://vb:s3cret@db.internal:5432/voicebridge")
        #expect(c.database.displayName == "postgres://vb@db.internal:5432/voicebridge" && c.database.recordings == "/shared/recordings")
        let file = try VoiceBridgeConfig(source: ConfigSource(environment: [:]))
        #expect(file.database.location == "./data/voicebridge.sqlite" && file.database.recordings == "./data/recordings")
        do {
            _ = try VoiceBridgeConfig(source: ConfigSource(environment: ["VOICEBRIDGE_DATABASE_URL": "mysql://vb:s3cret@db/voicebridge"]))
            Issue.record("a mysql URL was accepted")
        } catch let error as ConfigError {
            #expect(error.key == "database.url" && error.origin == "environment VOICEBRIDGE_DATABASE_URL" && !"\(error)".contains("s3cret"))
        }
    }

    @Test func aBadEnvironmentValueNamesTheVariable() {
        #expect {
            try VoiceBridgeConfig(source: ConfigSource(environment: ["VOICEBRIDGE_SIP_PORT": "x"]))
        } throws: { error in
            let e = error as? ConfigError
            return e?.key == "sip.port" && e?.origin == "environment VOICEBRIDGE_SIP_PORT"
        }
    }

    @Test(arguments: ["localhost", "127.0.0.1", "127.1.2.3", "::1", "[::1]", "0:0:0:0:0:0:0:1"])
    func loopbackIsDecidedByTheAddress(host: String) {
        #expect(VoiceBridgeConfig.isLoopback(host))
    }

    @Test(arguments: ["127.evil.example", "0.0.0.0", "128.0.0.1", "::", "::2", "localhost.example", ""])
    func namesAndOtherAddressesAreNotLoopback(host: String) {
        #expect(!VoiceBridgeConfig.isLoopback(host))
    }

    @Test func aNonLoopbackHostIsAllowedOnceATokenIsSet() throws {
        let c = try VoiceBridgeConfig(source: ConfigSource(yaml: "http: {host: 0.0.0.0}\napi: {tokens: [abcdefghijklmnop]}"))
        #expect(c.http.host == "0.0.0.0")
    }

    @Test func aMissingFileIsAClearError() {
        #expect(throws: ConfigError.self) { try VoiceBridgeConfig.load(path: "/nonexistent/vb.yaml", environment: [:]) }
    }
}
