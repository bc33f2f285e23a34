/// The TwiML VoiceBridge hands Twilio — the same `<Connect><Stream>` for a number's voice webhook
/// and for a call placed through the REST API — and the stream URL it names.
public enum TwiML {
    /// The WebSocket form of an http(s) base URL: `https://host` → `wss://host`.
    public static func webSocketBase(_ base: String) -> String {
        base.replacingOccurrences(of: "https://", with: "wss://").replacingOccurrences(of: "http://", with: "ws://")
    }

    /// Connects the call's media stream to `/twilio/stream` under `publicBase`, `parameters`
    /// becoming its `customParameters`.
    public static func connectStream(publicBase: String, parameters: [(String, String)]) -> String {
        let parameters = parameters.map { "<Parameter name=\"\(escape($0.0))\" value=\"\(escape($0.1))\"/>" }.joined()
        return #"<Response><Connect><Stream url="\#(escape(webSocketBase(publicBase) + "/twilio/stream"))">\#(parameters)</Stream></Connect></Response>"#
    }

    /// Hands the call to a person (PROTOCOLS-2 §1.5): a `<Dial>` to `number` (a `sip:` URI dials `<Sip>`).
    public static func dial(_ number: String, callerID: String?, timeoutSeconds: Int = 25) -> String {
        let caller = callerID.map { #" callerId="\#(escape($0))""# } ?? ""
        let noun = number.hasPrefix("sip:") ? "<Sip>\(escape(number))</Sip>" : "<Number>\(escape(number))</Number>"
        return #"<Response><Dial\#(caller) timeout="\#(timeoutSeconds)">\#(noun)</Dial></Response>"#
    }

    static func escape(_ s: String) -> String { XMLText.escaped(s) }
}
