public enum VoiceBridgeVersion {
    public static let current = "0.1.0"
}
