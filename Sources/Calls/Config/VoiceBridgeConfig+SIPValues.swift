extension VoiceBridgeConfig {
    /// The longest caller display name accepted (it travels in every INVITE's From).
    public static let maximumDisplayNameLength = 64

    /// Why `name` cannot be a caller display name, or nil. It is written into SIP's From header: a
    /// control character (a CR or LF above all) would start a header of the sender's own.
    public static func displayNameProblem(_ name: String) -> String? {
        if containsControlCharacters(name) { return "must not contain control characters (line breaks, tabs)" }
        if name.count > maximumDisplayNameLength { return "must be at most \(maximumDisplayNameLength) characters" }
        return nil
    }

    /// Any C0 control character, or DEL: what no value bound for a SIP header, a URI or a log line may hold.
    public static func containsControlCharacters(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
    }
}
