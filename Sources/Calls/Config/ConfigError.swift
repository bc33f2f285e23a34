/// A configuration problem, always naming the key (as written in YAML) and what is wrong with it.
public struct ConfigError: Error, Equatable, CustomStringConvertible {
    public let key: String
    public let problem: String
    /// Where the value came from: "config.yaml:12", or the environment variable's name.
    public let origin: String?

    public init(key: String, problem: String, origin: String? = nil) {
        self.key = key
        self.problem = problem
        self.origin = origin
    }

    public var description: String {
        if let origin { return "config key '\(key)' (\(origin)): \(problem)" }
        return "config key '\(key)': \(problem)"
    }
}
