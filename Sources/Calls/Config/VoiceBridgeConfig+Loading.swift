import Bridge
import Dialogue
import Realtime
import Foundation
import Tools
import NIOCore

extension VoiceBridgeConfig {
    /// Reads the YAML file at `path` (if any) with environment overrides, and validates everything.
    public static func load(path: String?, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> VoiceBridgeConfig {
        try VoiceBridgeConfig(source: ConfigSource.load(path: path, environment: environment))
    }

    public init(source: ConfigSource) throws {
        var r = ConfigReader(source)
        try self.init(reading: &r)
    }

    /// Every key the server reads, in the order it reads them, as `source` leads it (the maps of
    /// operator-named entries — routes, webhook endpoints, secrets — are read for the names in it).
    public static func keyDefinitions(source: ConfigSource) throws -> [ConfigKeyDefinition] {
        var r = ConfigReader(source)
        _ = try VoiceBridgeConfig(reading: &r)
        return r.definitions
    }

    /// Reads every key through `r`, which then knows every key there is (`usedKeys`).
    init(reading r: inout ConfigReader) throws {
        var c = VoiceBridgeConfig()

        c.http.host = try r.string("http.host", default: c.http.host)
        c.http.port = try r.int("http.port", default: c.http.port, in: 0...65535)
        c.http.publicURL = try r.optionalString("http.public_url")
        c.http.webRoot = try r.string("http.web_root", default: c.http.webRoot)
        c.http.allowedHosts = try r.list("http.allowed_hosts", default: [])
        if let bad = c.http.allowedHosts.first(where: { $0.isEmpty || $0.contains(where: { $0 == "/" || $0.isWhitespace }) || Self.containsControlCharacters($0) }) {
            throw ConfigError(key: "http.allowed_hosts", problem: "'\(bad)' is not a host name or address (no scheme, path or spaces)", origin: r.origin(of: "http.allowed_hosts"))
        }
        c.http.shutdownTimeoutSeconds = try r.int("http.shutdown_timeout_seconds", default: c.http.shutdownTimeoutSeconds, in: 1...600)
        c.http.headerTimeoutSeconds = try r.int("http.header_timeout_seconds", default: c.http.headerTimeoutSeconds, in: 1...300)
        c.http.minBodyBytesPerSecond = try r.int("http.min_body_bytes_per_second", default: c.http.minBodyBytesPerSecond, in: 1...100_000_000)
        c.http.idleTimeoutSeconds = try r.int("http.idle_timeout_seconds", default: c.http.idleTimeoutSeconds, in: 1...3600)
        c.http.maxConnections = try r.int("http.max_connections", default: c.http.maxConnections, in: 1...1_000_000)
        c.http.maxConnectionsPerAddress = try r.int("http.max_connections_per_address", default: c.http.maxConnectionsPerAddress, in: 1...1_000_000)
        if let url = c.http.publicURL {
            guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme ?? ""), parsed.host != nil else {
                throw ConfigError(key: "http.public_url", problem: "must be an http(s) URL like https://voice.example.com, got '\(url)'", origin: r.origin(of: "http.public_url"))
            }
        }

        c.api.tokens = try r.list("api.tokens", default: [], aliases: ["VOICEBRIDGE_API_TOKEN"])
        // An empty token would turn authentication off while lifting the loopback-only rule; a
        // short one can be guessed. Generate one with `openssl rand -hex 24`.
        if let weak = c.api.tokens.first(where: { $0.count < API.minimumTokenLength || $0.contains(where: \.isWhitespace) }) {
            let shown = weak.isEmpty ? "an empty token" : "a token of \(weak.count) characters"
            throw ConfigError(key: "api.tokens", problem: "\(shown): each token needs at least \(API.minimumTokenLength) characters and no spaces (e.g. `openssl rand -hex 24`)", origin: r.origin(of: "api.tokens"))
        }
        c.api.callCreationsPerMinute = try r.int("api.call_creations_per_minute", default: c.api.callCreationsPerMinute, in: 1...100_000)

        c.database.path = try r.string("database.path", default: c.database.path)
        if c.database.path.isEmpty {
            throw ConfigError(key: "database.path", problem: "must not be empty")
        }
        c.database.url = try r.optionalString("database.url")
        if let url = c.database.url {
            do { _ = try PostgresStoreDatabase.Location(url: url) } catch {
                throw ConfigError(key: "database.url", problem: "\(error)", origin: r.origin(of: "database.url"))
            }
        }
        c.database.recordingsFolder = try r.optionalString("database.recordings_folder")

        c.telemetry.otlpEndpoint = try r.optionalString("telemetry.otlp_endpoint")
        c.telemetry.serviceName = try r.string("telemetry.service_name", default: c.telemetry.serviceName)
        if let url = c.telemetry.otlpEndpoint {
            guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme ?? ""), parsed.host != nil else {
                throw ConfigError(key: "telemetry.otlp_endpoint", problem: "must be the collector's OTLP/HTTP traces URL, like http://collector:4318/v1/traces, got '\(url)'",
                                  origin: r.origin(of: "telemetry.otlp_endpoint"))
            }
        }
        guard !c.telemetry.serviceName.isEmpty else {
            throw ConfigError(key: "telemetry.service_name", problem: "must not be empty", origin: r.origin(of: "telemetry.service_name"))
        }
        c.cluster.nodeID = try r.string("cluster.node_id", default: c.cluster.nodeID)
        c.cluster.leaseSeconds = try r.double("cluster.lease_seconds", default: c.cluster.leaseSeconds, in: 3...3600)

        try Self.readStorage(&c.storage, &r)

        c.sip.bind = try r.string("sip.bind", default: c.sip.bind)
        c.sip.advertisedAddress = try r.optionalString("sip.advertised_address")
        c.sip.port = try r.int("sip.port", default: c.sip.port, in: 0...65535)
        c.sip.rtpPortMin = try r.int("sip.rtp_port_min", default: c.sip.rtpPortMin, in: 1024...65534)
        c.sip.rtpPortMax = try r.int("sip.rtp_port_max", default: c.sip.rtpPortMax, in: 1025...65535)
        if c.sip.rtpPortMax <= c.sip.rtpPortMin {
            throw ConfigError(key: "sip.rtp_port_max", problem: "must be above sip.rtp_port_min (\(c.sip.rtpPortMin)), got \(c.sip.rtpPortMax)", origin: r.origin(of: "sip.rtp_port_max"))
        }
        c.sip.gateway = try r.optionalString("sip.gateway")
        if let gateway = c.sip.gateway, !Self.isSIPURI(gateway) {
            throw ConfigError(key: "sip.gateway", problem: "must look like sip:host or sip:host:port, got '\(gateway)'", origin: r.origin(of: "sip.gateway"))
        }
        c.sip.gatewayIsSimulatedCallee = try r.bool("sip.gateway_is_simulated_callee", default: c.sip.gatewayIsSimulatedCallee)
        c.sip.simulatedCalleeVoice = try r.choice("sip.simulated_callee_voice", default: c.sip.simulatedCalleeVoice)
        c.sip.username = try r.optionalString("sip.username")
        c.sip.password = try r.optionalString("sip.password")
        c.sip.allowedCallerIDs = try r.list("sip.allowed_caller_ids", default: [])
        c.sip.maxInboundCalls = try r.int("sip.max_inbound_calls", default: c.sip.maxInboundCalls, in: 0...10_000)
        c.sip.mediaTimeoutSeconds = try r.int("sip.media_timeout", default: c.sip.mediaTimeoutSeconds, in: 1...3600)
        c.sip.rateLimitPerSecond = try r.double("sip.rate_limit.requests_per_second", default: c.sip.rateLimitPerSecond, in: 0...100_000)
        c.sip.rateLimitBurst = try r.double("sip.rate_limit.burst", default: c.sip.rateLimitBurst, in: 1...1_000_000)
        c.sip.rateLimitExempt = try r.list("sip.rate_limit.exempt", default: [])
        if let bad = c.sip.rateLimitExempt.first(where: { (try? SocketAddress(ipAddress: $0, port: 0)) == nil }) {
            throw ConfigError(key: "sip.rate_limit.exempt", problem: "must list IP addresses, got '\(bad)'", origin: r.origin(of: "sip.rate_limit.exempt"))
        }

        try Self.readSIPSecurity(&c.sip, &r)
        try Self.readEngine(&c.engine, &r)

        c.twilio.authToken = try r.optionalString("twilio.auth_token", aliases: ["TWILIO_AUTH_TOKEN"])
        c.twilio.accountSID = try r.optionalString("twilio.account_sid", aliases: ["TWILIO_ACCOUNT_SID"])
        c.twilio.apiKey = try r.optionalString("twilio.api_key", aliases: ["TWILIO_API_KEY"])
        c.twilio.apiSecret = try r.optionalString("twilio.api_secret", aliases: ["TWILIO_API_SECRET"])
        c.twilio.fromNumber = try r.optionalString("twilio.from_number")
        c.twilio.apiBaseURL = try r.string("twilio.api_base_url", default: c.twilio.apiBaseURL)
        c.twilio.machineDetection = try r.bool("twilio.machine_detection", default: c.twilio.machineDetection)
        c.carrier = try r.choice("carrier", default: c.carrier)
        if c.carrier == .twilio { try Self.checkTwilioCarrier(c, r) }
        c.mediaStreams.token = try r.optionalString("media_streams.token", aliases: ["VOICEBRIDGE_MEDIA_STREAM_TOKEN"])
        if let token = c.mediaStreams.token, token.count < API.minimumTokenLength || token.contains(where: { !$0.isASCII || !($0.isLetter || $0.isNumber || "-._~".contains($0)) }) {
            throw ConfigError(key: "media_streams.token", problem: "needs at least \(API.minimumTokenLength) characters, letters, digits and - . _ ~ only (it goes into a URL): e.g. `openssl rand -hex 24`", origin: r.origin(of: "media_streams.token"))
        }
        c.mediaStreams.startTimeoutSeconds = try r.int("media_streams.start_timeout_seconds", default: c.mediaStreams.startTimeoutSeconds, in: 1...300)
        c.mediaStreams.dialects = try r.list("media_streams.dialects", default: []).map { name in
            guard let dialect = MediaStreamDialect(rawValue: name), MediaStreamDialect.providers.contains(dialect) else {
                throw ConfigError(key: "media_streams.dialects", problem: "'\(name)' is not one of \(MediaStreamDialect.providers.map(\.rawValue).joined(separator: ", "))", origin: r.origin(of: "media_streams.dialects"))
            }
            return dialect
        }

        try Self.readAudioSocket(&c.audioSocket, &r)
        try Self.readOutbound(&c.outbound, &r)
        try Self.readWebhooks(&c.webhooks, &r)
        c.transfer.target = try r.optionalString("transfer.target")
        c.transfer.mode = try r.choice("transfer.mode", default: c.transfer.mode)
        c.transfer.acceptTimeoutSeconds = try r.int("transfer.accept_timeout_seconds", default: c.transfer.acceptTimeoutSeconds, in: 5...120)
        c.transfer.holdMusic = try r.optionalString("transfer.hold_music")
        c.transfer.briefing = try r.choice("transfer.briefing", default: c.transfer.briefing)
        c.transfer.acceptByVoice = try r.bool("transfer.accept_by_voice", default: c.transfer.acceptByVoice)
        if let target = c.transfer.target, let problem = Self.transferTargetProblem(target) {
            throw ConfigError(key: "transfer.target", problem: problem, origin: r.origin(of: "transfer.target"))
        }
        c.knowledge.embeddings = try r.choice("knowledge.embeddings", default: c.knowledge.embeddings)
        c.analysis.llm = try r.choice("analysis.llm", default: c.analysis.llm)
        c.analysis.baseURL = try r.string("analysis.base_url", default: c.engine.cascade.llmBaseURL)
        c.analysis.apiKey = try r.optionalString("analysis.api_key", aliases: ["VOICEBRIDGE_ANALYSIS_API_KEY"]) ?? c.engine.cascade.llmAPIKey
        c.analysis.model = try r.string("analysis.model", default: c.engine.cascade.llmModel)
        c.analysis.timeoutSeconds = try r.int("analysis.timeout_seconds", default: c.analysis.timeoutSeconds, in: 1...300)
        try Self.readEgress(&c, &r)
        try Self.readSecrets(&c, &r)

        c.inbound.greeting = try r.string("inbound.greeting", default: c.inbound.greeting)
        c.inbound.displayName = try r.string("inbound.display_name", default: c.inbound.displayName)
        c.inbound.purpose = try r.string("inbound.purpose", default: c.inbound.purpose)
        c.inbound.questions = try r.list("inbound.questions", default: c.inbound.questions)
        c.inbound.routes = try Self.readRoutes(&r)

        c.pricing.currency = try r.string("pricing.currency", default: c.pricing.currency)
        c.pricing.telephonyPerMinute = try r.double("pricing.telephony_per_minute", default: 0, in: 0...1000)
        c.pricing.sttPerMinute = try r.double("pricing.stt_per_minute", default: 0, in: 0...1000)
        c.pricing.ttsPerMillionCharacters = try r.double("pricing.tts_per_million_characters", default: 0, in: 0...100_000)
        c.pricing.llmPerMillionInputTokens = try r.double("pricing.llm_per_million_input_tokens", default: 0, in: 0...100_000)
        c.pricing.llmPerMillionOutputTokens = try r.double("pricing.llm_per_million_output_tokens", default: 0, in: 0...100_000)
        c.pricing.realtimePerAudioMinute = try r.double("pricing.realtime_per_audio_minute", default: 0, in: 0...1000)

        if let unknown = r.unusedFileKeys().first {
            throw ConfigError(key: unknown, problem: "unknown key (see config/voicebridge.example.yaml)", origin: r.origin(of: unknown))
        }
        // Seed 000 §11: without a token the API is open, so it may only be reachable from this host.
        if c.api.tokens.isEmpty, !Self.isLoopback(c.http.host) {
            throw ConfigError(key: "http.host", problem: "'\(c.http.host)' is not a loopback address; set api.tokens (or VOICEBRIDGE_API_TOKEN) before listening beyond this machine", origin: r.origin(of: "http.host"))
        }
        self = c
    }

    /// `storage.*`: the encryption key given inline (or by `VOICEBRIDGE_STORAGE_ENCRYPTION_KEY`) or
    /// as a file, never both, and any previous keys; each 32 bytes in base64.
    private static func readStorage(_ s: inout Storage, _ r: inout ConfigReader) throws {
        let inline = try r.optionalString("storage.encryption_key")
        let file = try r.optionalString("storage.encryption_key_file")
        if inline != nil, file != nil {
            throw ConfigError(key: "storage.encryption_key_file", problem: "give the key inline (storage.encryption_key) or as a file, not both",
                              origin: r.origin(of: "storage.encryption_key_file"))
        }
        if let file {
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
                throw ConfigError(key: "storage.encryption_key_file", problem: "cannot read '\(file)'", origin: r.origin(of: "storage.encryption_key_file"))
            }
            s.encryptionKey = try storageKey(text, key: "storage.encryption_key_file", r)
        } else if let inline {
            s.encryptionKey = try storageKey(inline, key: "storage.encryption_key", r)
        }
        s.previousEncryptionKeys = try r.list("storage.previous_encryption_keys", default: []).map {
            try storageKey($0, key: "storage.previous_encryption_keys", r)
        }
        if s.encryptionKey == nil, !s.previousEncryptionKeys.isEmpty {
            throw ConfigError(key: "storage.previous_encryption_keys", problem: "previous keys need a current one (storage.encryption_key)",
                              origin: r.origin(of: "storage.previous_encryption_keys"))
        }
    }

    private static func storageKey(_ text: String, key: String, _ r: ConfigReader) throws -> Data {
        guard let data = Data(base64Encoded: text.trimmingCharacters(in: .whitespacesAndNewlines)), data.count == StorageCipher.keyBytes else {
            // Never echo the value: it is meant to be a secret.
            throw ConfigError(key: key, problem: "must be \(StorageCipher.keyBytes) random bytes in base64 (make one with: openssl rand -base64 32)",
                              origin: r.origin(of: key))
        }
        return data
    }

    /// `inbound.routes.<number>.*`: each route checked as it is read (its template is checked
    /// against the database when the server starts).
    private static func readRoutes(_ r: inout ConfigReader) throws -> [Inbound.Route] {
        try r.childNames(of: "inbound.routes").map { number in
            let key = "inbound.routes.\(number)"
            guard number.contains(where: \.isNumber) else {
                throw ConfigError(key: key, problem: "a route's key is the called number, got '\(number)'", origin: r.origin(of: key))
            }
            var route = Inbound.Route(number: number)
            route.botURL = try r.optionalString("\(key).bot_url")
            route.template = try r.optionalString("\(key).template")
            route.greeting = try r.optionalString("\(key).greeting")
            route.displayName = try r.optionalString("\(key).display_name")
            route.purpose = try r.optionalString("\(key).purpose")
            let questions = try r.list("\(key).questions", default: [])
            route.questions = questions.isEmpty ? nil : questions
            if let url = route.botURL, let problem = botURLProblem(url) {
                throw ConfigError(key: "\(key).bot_url", problem: problem, origin: r.origin(of: "\(key).bot_url"))
            }
            return route
        }
    }

    /// `webhooks.*`: each endpoint checked as the API checks one (URL, secret, event names).
    private static func readWebhooks(_ w: inout Webhooks, _ r: inout ConfigReader) throws {
        w.endpoints = try r.childNames(of: "webhooks.endpoints").map { name in
            let key = "webhooks.endpoints.\(name)"
            let url = try r.string("\(key).url", default: "")
            let secret = try r.string("\(key).secret", default: "")
            let events = try r.list("\(key).events", default: [])
            if let problem = WebhookEndpoint.problem(url: url, secret: secret, events: events) {
                throw ConfigError(key: key, problem: problem, origin: r.origin(of: "\(key).url"))
            }
            return Webhooks.Endpoint(name: name, url: url, secret: secret, events: events)
        }
        let schedule = try r.list("webhooks.retry_schedule_seconds", default: w.retrySchedule.map { String(Int($0)) })
        w.retrySchedule = try schedule.map { text in
            guard let seconds = Double(text), seconds > 0 else {
                throw ConfigError(key: "webhooks.retry_schedule_seconds", problem: "each delay is a positive number of seconds, got '\(text)'",
                                  origin: r.origin(of: "webhooks.retry_schedule_seconds"))
            }
            return seconds
        }
        w.timeoutSeconds = try r.double("webhooks.timeout_seconds", default: w.timeoutSeconds, in: 0.1...120)
        w.concurrency = try r.int("webhooks.concurrency", default: w.concurrency, in: 1...64)
    }

    /// `carrier: twilio` needs the account, a way to authenticate, the token that signs callbacks,
    /// and the public URL Twilio calls back and streams to.
    private static func checkTwilioCarrier(_ c: VoiceBridgeConfig, _ r: ConfigReader) throws {
        guard let sid = c.twilio.accountSID, sid.hasPrefix("AC") else {
            throw ConfigError(key: "twilio.account_sid", problem: "carrier is twilio but no AC… account SID is set (TWILIO_ACCOUNT_SID)", origin: r.origin(of: "twilio.account_sid"))
        }
        guard c.twilio.authToken != nil else {
            throw ConfigError(key: "twilio.auth_token", problem: "carrier is twilio: the auth token signs Twilio's callbacks (TWILIO_AUTH_TOKEN)")
        }
        if (c.twilio.apiKey == nil) != (c.twilio.apiSecret == nil) {
            throw ConfigError(key: c.twilio.apiKey == nil ? "twilio.api_key" : "twilio.api_secret", problem: "an API key needs its secret, and a secret its key")
        }
        guard c.http.publicURL != nil else {
            throw ConfigError(key: "http.public_url", problem: "carrier is twilio: set the public https URL Twilio calls back and streams to")
        }
        guard let url = URL(string: c.twilio.apiBaseURL), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
            throw ConfigError(key: "twilio.api_base_url", problem: "must be an http(s) URL, got '\(c.twilio.apiBaseURL)'", origin: r.origin(of: "twilio.api_base_url"))
        }
    }

    private static func readOutbound(_ o: inout Outbound, _ r: inout ConfigReader) throws {
        o.maxConcurrentCalls = try r.int("outbound.max_concurrent_calls", default: o.maxConcurrentCalls, in: 1...10_000)
        o.campaignCallsPerMinute = try r.int("outbound.campaign_calls_per_minute", default: o.campaignCallsPerMinute, in: 1...60_000)
        o.ringTimeoutSeconds = try r.int("outbound.ring_timeout", default: o.ringTimeoutSeconds, in: 1...600)
        o.maxCallDurationSeconds = try r.int("outbound.max_call_duration", default: o.maxCallDurationSeconds, in: 10...86_400)
        o.retry.enabled = try r.bool("outbound.retry.enabled", default: o.retry.enabled)
        o.retry.maxRetries = try r.int("outbound.retry.max_retries", default: o.retry.maxRetries, in: 0...20)
        o.retry.retryIntervalSeconds = try r.int("outbound.retry.retry_interval", default: o.retry.retryIntervalSeconds, in: 0...86_400)
        let reasons = try r.list("outbound.retry.retry_on", default: o.retry.retryOn.map(\.rawValue))
        o.retry.retryOn = try reasons.map { name in
            guard let reason = Outbound.RetryReason(rawValue: name) else {
                let allowed = Outbound.RetryReason.allCases.map(\.rawValue).joined(separator: ", ")
                throw ConfigError(key: "outbound.retry.retry_on", problem: "'\(name)' is not one of \(allowed)", origin: r.origin(of: "outbound.retry.retry_on"))
            }
            return reason
        }
        o.ai.greetingTemplate = try r.string("outbound.ai.greeting_template", default: o.ai.greetingTemplate)
        o.ai.closingTemplate = try r.string("outbound.ai.closing_template", default: o.ai.closingTemplate)
        o.ai.maxTurns = try r.int("outbound.ai.max_turns", default: o.ai.maxTurns, in: 1...200)
        o.result.saveTranscript = try r.bool("outbound.result.save_transcript", default: o.result.saveTranscript)
        o.result.saveRecording = try r.bool("outbound.result.save_recording", default: o.result.saveRecording)
        o.result.generateSummary = try r.bool("outbound.result.generate_summary", default: o.result.generateSummary)
        o.machineDetection.action = try r.choice("outbound.machine_detection.action", default: o.machineDetection.action)
        o.machineDetection.holdGreetingMs = try r.int("outbound.machine_detection.hold_greeting_ms", default: o.machineDetection.holdGreetingMs, in: 500...10_000)
        o.machineDetection.message = try r.string("outbound.machine_detection.message", default: o.machineDetection.message)
        o.machineDetection.speechThresholdMs = try r.int("outbound.machine_detection.speech_threshold_ms", default: o.machineDetection.speechThresholdMs, in: 1000...6000)
    }

    /// Whether `host` is `localhost` or a loopback address (127.0.0.0/8, ::1), decided by parsing
    /// the address: a name such as `127.example.com` is not loopback.
    public static func isLoopback(_ host: String) -> Bool {
        let host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if host.lowercased() == "localhost" { return true }
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 { return UInt32(bigEndian: v4.s_addr) >> 24 == 127 }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, host, &v6) == 1 else { return false }
        return withUnsafeBytes(of: &v6) { bytes in bytes.dropLast().allSatisfy { $0 == 0 } && bytes.last == 1 }
    }
}
