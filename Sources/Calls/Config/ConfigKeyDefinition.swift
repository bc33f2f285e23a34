/// One configuration key as the server reads it: what `voicebridge serve --list-keys` prints and
/// docs/reference/configuration.md is made from (with the example file's comment for each key), so
/// the reference cannot drift from the reader.
public struct ConfigKeyDefinition: Sendable, Equatable, Codable {
    /// The dotted key, `outbound.retry.max_retries`.
    public var key: String
    /// The environment variables that set it, the first `VOICEBRIDGE_…`, then any usual names
    /// (`OPENAI_API_KEY`).
    public var environment: [String]
    /// What it holds: `text`, `true or false`, `list`, `map`, `whole number, 1 to 600`, `one of a, b`.
    public var kind: String
    /// The value when nothing sets it, as written in YAML (`none` for a text with no default).
    public var defaultValue: String

    enum Kind {
        static let text = "text"
        static let bool = "true or false"
        static let list = "list"
        static let map = "map: one entry per name"
    }

    enum CodingKeys: String, CodingKey {
        case key, environment, kind
        case defaultValue = "default"
    }
}
