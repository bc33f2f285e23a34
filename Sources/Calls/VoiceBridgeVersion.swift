/// The version the binary reports (`voicebridge --version`, `/healthz`, the webhooks' User-Agent):
/// CHANGELOG.md's next release while it is unreleased.
public enum VoiceBridgeVersion {
    public static let current = "0.5.0-dev"
}
