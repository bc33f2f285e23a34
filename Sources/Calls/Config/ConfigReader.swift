import Foundation

/// Typed, validated reads from a `ConfigSource`, remembering which keys were used.
struct ConfigReader {
    let source: ConfigSource
    private(set) var usedKeys: Set<String> = []

    init(_ source: ConfigSource) { self.source = source }

    mutating func string(_ key: String, default value: String, aliases: [String] = []) throws -> String {
        guard let entry = take(key, aliases) else { return value }
        guard case .scalar(let text) = entry.value else {
            throw ConfigError(key: key, problem: "expected a single value, got a list", origin: entry.origin)
        }
        return text
    }

    mutating func optionalString(_ key: String, aliases: [String] = []) throws -> String? {
        let text = try string(key, default: "", aliases: aliases)
        return text.isEmpty ? nil : text
    }

    mutating func int(_ key: String, default value: Int, in range: ClosedRange<Int>) throws -> Int {
        try number(key, default: value, in: range, kind: "a whole number")
    }

    mutating func double(_ key: String, default value: Double, in range: ClosedRange<Double>) throws -> Double {
        try number(key, default: value, in: range, kind: "a number")
    }

    private mutating func number<N: LosslessStringConvertible & Comparable>(_ key: String, default value: N, in range: ClosedRange<N>, kind: String) throws -> N {
        guard let entry = take(key, []) else { return value }
        guard case .scalar(let text) = entry.value, let number = N(text.trimmingCharacters(in: .whitespaces)) else {
            throw ConfigError(key: key, problem: "expected \(kind), got \(entry.value.display)", origin: entry.origin)
        }
        guard range.contains(number) else {
            throw ConfigError(key: key, problem: "must be between \(range.lowerBound) and \(range.upperBound), got \(number)", origin: entry.origin)
        }
        return number
    }

    mutating func bool(_ key: String, default value: Bool) throws -> Bool {
        guard let entry = take(key, []) else { return value }
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
        guard let entry = take(key, aliases) else { return value }
        switch entry.value {
        case .list(let items): return items
        case .scalar(let text):
            return text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
    }

    mutating func choice<T: RawRepresentable>(_ key: String, default value: T) throws -> T
    where T: CaseIterable, T.RawValue == String {
        guard let entry = take(key, []) else { return value }
        guard case .scalar(let text) = entry.value, let choice = T(rawValue: text.lowercased()) else {
            let allowed = T.allCases.map(\.rawValue).joined(separator: ", ")
            throw ConfigError(key: key, problem: "must be one of \(allowed), got \(entry.value.display)", origin: entry.origin)
        }
        return choice
    }

    func origin(of key: String) -> String? { source.lookup(key, aliases: []).map(\.origin) }

    /// The names directly under `prefix` in the file (`inbound.routes` → each route's number).
    func childNames(of prefix: String) -> [String] {
        let start = prefix + "."
        return Set(source.fileKeys.filter { $0.hasPrefix(start) }.compactMap { $0.dropFirst(start.count).split(separator: ".").first.map(String.init) }).sorted()
    }

    /// Keys written in the file (bare ones too) that nothing read: misspellings or keys from
    /// another version.
    func unusedFileKeys() -> [String] { source.writtenKeys.subtracting(usedKeys).sorted() }

    private mutating func take(_ key: String, _ aliases: [String]) -> ConfigSource.Entry? {
        usedKeys.insert(key)
        return source.lookup(key, aliases: aliases)
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
