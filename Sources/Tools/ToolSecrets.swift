/// The secrets tools may name: the configuration's `secrets:` map, values from the environment
/// where the configuration gives none.
public struct ToolSecrets: Sendable {
    private let configured: [String: ToolSecret]
    private let environment: [String: String]

    public init(configured: [String: ToolSecret] = [:], environment: [String: String] = [:]) {
        self.configured = configured
        self.environment = environment
    }

    /// Whether a secret called `name` exists (its hosts aside).
    public func has(_ name: String) -> Bool { rawValue(name) != nil }

    /// The value of `name` for a request to `host`, or why not.
    public func value(_ name: String, for host: String) -> Result<String, SecretReference.Missing> {
        guard let value = rawValue(name), let secret = configured[name] else { return .failure(.init(name: name)) }
        guard secret.allows(host) else { return .failure(.init(name: name, refusedHost: ToolSecret.normalized(host))) }
        return .success(value)
    }

    private func rawValue(_ name: String) -> String? {
        guard let secret = configured[name] else { return nil }
        return secret.value ?? environment["VOICEBRIDGE_SECRET_" + name.uppercased()]
    }

    /// `text` with every secret value replaced by `***`, as it is and as JSON writes it inside a
    /// string. Values shorter than 4 characters are not masked (they would mask ordinary words and
    /// digits everywhere); `secrets` refuses such values when the configuration is read.
    public func masked(_ text: String) -> String {
        let values = configured.keys.compactMap(rawValue).filter { $0.count >= ToolSecrets.shortestMasked }
        let forms = Set(values.flatMap { [$0] + Self.jsonEscaped($0) }).sorted { $0.count > $1.count }
        return forms.reduce(text) { $0.replacingOccurrences(of: $1, with: "***") }
    }

    public static let shortestMasked = 4

    /// `value` as JSON writes it between quotes: as this server's encoder does, and with `/`
    /// escaped too, as other encoders (a tool's answer) may.
    static func jsonEscaped(_ value: String) -> [String] {
        let quoted = JSONValue.string(value).serialized
        let inner = String(quoted.dropFirst().dropLast())
        return [inner, inner.replacingOccurrences(of: "/", with: "\\/")]
    }
}
