import Foundation

/// Typed, validated reads from a `ConfigSource`, remembering which keys were used and, in the
/// order they were first read, what each one is (`definitions`: the configuration reference).
struct ConfigReader {
    let source: ConfigSource
    private(set) var usedKeys: Set<String> = []
    private(set) var definitions: [ConfigKeyDefinition] = []

    init(_ source: ConfigSource) { self.source = source }

    mutating func string(_ key: String, default value: String, aliases: [String] = []) throws -> String {
        try text(key, aliases: aliases, default: value) ?? value
    }

    mutating func optionalString(_ key: String, aliases: [String] = []) throws -> String? {
        let text = try text(key, aliases: aliases, default: nil) ?? ""
        return text.isEmpty ? nil : text
    }

    private mutating func text(_ key: String, aliases: [String], default value: String?) throws -> String? {
        guard let entry = take(key, aliases, ConfigKeyDefinition.Kind.text, default: value.map { $0.isEmpty ? "\"\"" : $0 } ?? "none") else { return nil }
        guard case .scalar(let text) = entry.value else {
            throw ConfigError(key: key, problem: "expected a single value, got a list", origin: entry.origin)
        }
        return text
    }

    mutating func int(_ key: String, default value: Int, in range: ClosedRange<Int>) throws -> Int {
        try number(key, default: value, in: range, kind: "a whole number")
    }

    mutating func double(_ key: String, default value: Double, in range: ClosedRange<Double>) throws -> Double {
        try number(key, default: value, in: range, kind: "a number")
    }

    private mutating func number<N: LosslessStringConvertible & Comparable>(_ key: String, default value: N, in range: ClosedRange<N>, kind: String) throws -> N {
        let defined = "\(kind.dropFirst(2)), \(Self.written(range.lowerBound)) to \(Self.written(range.upperBound))"
        guard let entry = take(key, [], defined, default: Self.written(value)) else { return value }
        guard case .scalar(let text) = entry.value, let number = N(text.trimmingCharacters(in: .whitespaces)) else {
            throw ConfigError(key: key, problem: "expected \(kind), got \(entry.value.display)", origin: entry.origin)
        }
        guard range.contains(number) else {
            throw ConfigError(key: key, problem: "must be between \(range.lowerBound) and \(range.upperBound), got \(number)", origin: entry.origin)
        }
        return number
    }

    mutating func bool(_ key: String, default value: Bool) throws -> Bool {
        guard let entry = take(key, [], ConfigKeyDefinition.Kind.bool, default: "\(value)") else { return value }
        if case .scalar(let text) = entry.value {
            switch text.lowercased() {
            case "true", "yes", "on", "1": return true
            case "false", "no", "off", "0": return false
            default: break
            }
        }
        throw ConfigError(key: key, problem: "expected true or false, got \(entry.value.display)", origin: entry.origin)
    }

    /// A list; from the environment it is written comma-separated.
    mutating func list(_ key: String, default value: [String], aliases: [String] = []) throws -> [String] {
        guard let entry = take(key, aliases, ConfigKeyDefinition.Kind.list, default: "[\(value.joined(separator: ", "))]") else { return value }
        switch entry.value {
        case .list(let items): return items
        case .scalar(let text):
            return text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
    }

    mutating func choice<T: RawRepresentable>(_ key: String, default value: T) throws -> T
    where T: CaseIterable, T.RawValue == String {
        let allowed = T.allCases.map(\.rawValue).joined(separator: ", ")
        guard let entry = take(key, [], "one of \(allowed)", default: value.rawValue) else { return value }
        guard case .scalar(let text) = entry.value, let choice = T(rawValue: text.lowercased()) else {
            throw ConfigError(key: key, problem: "must be one of \(allowed), got \(entry.value.display)", origin: entry.origin)
        }
        return choice
    }

    /// A number as one writes it in YAML: 15, not 15.0.
    private static func written(_ number: some LosslessStringConvertible) -> String {
        let text = "\(number)"
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }

    func origin(of key: String) -> String? { source.lookup(key, aliases: []).map(\.origin) }

    /// The names directly under `prefix` in the file (`inbound.routes` → each route's number).
    mutating func childNames(of prefix: String) -> [String] {
        define(prefix, [], ConfigKeyDefinition.Kind.map, default: "{}", fromEnvironment: false)
        let start = prefix + "."
        return Set(source.fileKeys.filter { $0.hasPrefix(start) }.compactMap { $0.dropFirst(start.count).split(separator: ".").first.map(String.init) }).sorted()
    }

    /// Keys written in the file (bare ones too) that nothing read: misspellings or keys from
    /// another version.
    func unusedFileKeys() -> [String] { source.writtenKeys.subtracting(usedKeys).sorted() }

    private mutating func take(_ key: String, _ aliases: [String], _ kind: String, default value: String) -> ConfigSource.Entry? {
        define(key, aliases, kind, default: value)
        return source.lookup(key, aliases: aliases)
    }

    /// `fromEnvironment`: false for a map, which only the file can hold.
    private mutating func define(_ key: String, _ aliases: [String], _ kind: String, default value: String, fromEnvironment: Bool = true) {
        guard usedKeys.insert(key).inserted else { return }
        let environment = fromEnvironment ? [ConfigSource.environmentName(for: key)] + aliases : []
        definitions.append(ConfigKeyDefinition(key: key, environment: environment, kind: kind, defaultValue: value))
    }
}

extension ConfigSource.Value {
    var display: String {
        switch self {
        case .scalar(let text): "'\(text)'"
        case .list(let items): "a list of \(items.count)"
        }
    }
}
