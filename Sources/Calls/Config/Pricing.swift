import Realtime

/// Prices for a call's cost estimate (`pricing.*` in the config). All zero by default: the
/// offline engine and the simulated callee cost nothing.
public struct Pricing: Sendable, Equatable {
    public var currency = "USD"
    public var telephonyPerMinute = 0.0
    public var sttPerMinute = 0.0
    public var ttsPerMillionCharacters = 0.0
    public var llmPerMillionInputTokens = 0.0
    public var llmPerMillionOutputTokens = 0.0
    public var realtimePerAudioMinute = 0.0

    public init() {}

    /// The estimate for a call that was connected `seconds` and used `usage`; telephony is
    /// prorated by the second (carriers that bill whole minutes charge a little more).
    public func estimate(seconds: Double, usage: EngineUsage) -> CostEstimate {
        var cost = CostEstimate(currency: currency)
        cost.telephony = seconds / 60 * telephonyPerMinute
        cost.stt = usage.sttSeconds / 60 * sttPerMinute
        cost.tts = Double(usage.ttsCharacters) / 1e6 * ttsPerMillionCharacters
        cost.llm = Double(usage.llmInputTokens) / 1e6 * llmPerMillionInputTokens + Double(usage.llmOutputTokens) / 1e6 * llmPerMillionOutputTokens
        cost.realtime = usage.realtimeAudioSeconds / 60 * realtimePerAudioMinute
        return cost
    }
}

/// A call's estimated cost by component.
public struct CostEstimate: Sendable, Codable, Equatable {
    public var currency: String
    public var telephony = 0.0
    public var stt = 0.0
    public var tts = 0.0
    public var llm = 0.0
    public var realtime = 0.0

    public var total: Double { telephony + stt + tts + llm + realtime }

    enum CodingKeys: String, CodingKey { case currency, telephony, stt, tts, llm, realtime, total }

    public init(currency: String) { self.currency = currency }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        currency = try c.decode(String.self, forKey: .currency)
        telephony = try c.decode(Double.self, forKey: .telephony)
        stt = try c.decode(Double.self, forKey: .stt)
        tts = try c.decode(Double.self, forKey: .tts)
        llm = try c.decode(Double.self, forKey: .llm)
        realtime = try c.decode(Double.self, forKey: .realtime)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(currency, forKey: .currency)
        try c.encode(telephony, forKey: .telephony)
        try c.encode(stt, forKey: .stt)
        try c.encode(tts, forKey: .tts)
        try c.encode(llm, forKey: .llm)
        try c.encode(realtime, forKey: .realtime)
        try c.encode(total, forKey: .total)
    }
}
