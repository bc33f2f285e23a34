import Foundation
import Yams

/// The raw configuration: YAML flattened to dotted keys, with environment overrides on top.
///
/// Every key `section.sub.key` can be overridden by `VOICEBRIDGE_SECTION_SUB_KEY`; provider keys
/// also answer to their usual names (`OPENAI_API_KEY`, …) through `aliases` in `ConfigReader`.
/// The reader marks which keys it used, so a misspelt key in the file is an error, not silence.
public struct ConfigSource: Sendable {
    public enum Value: Sendable, Equatable {
        case scalar(String)
        case list([String])
    }

    struct Entry: Sendable {
        var value: Value
        var origin: String
    }

    private(set) var fileEntries: [String: Entry] = [:]
    /// Keys written bare (`key:`, YAML null): not set, the default applies.
    private(set) var bareKeys: Set<String> = []
    let environment: [String: String]

    public init(yaml: String = "", fileName: String = "config", environment: [String: String] = [:]) throws {
        self.environment = environment
        guard !yaml.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return }
        let root: Node?
        do {
            root = try Yams.compose(yaml: yaml)
        } catch {
            throw ConfigError(key: "(file)", problem: "not valid YAML: \(error)", origin: fileName)
        }
        guard let root else { return }
        guard case .mapping(let mapping) = root else {
            throw ConfigError(key: "(root)", problem: "the file must be a mapping of sections", origin: fileName)
        }
        try flatten(mapping, prefix: "", fileName: fileName)
    }

    public static func load(path: String?, environment: [String: String]) throws -> ConfigSource {
        guard let path else { return try ConfigSource(environment: environment) }
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ConfigError(key: "(file)", problem: "cannot read \(path): \(error.localizedDescription)")
        }
        return try ConfigSource(yaml: text, fileName: path, environment: environment)
    }

    /// The environment variable that overrides `key`.
    public static func environmentName(for key: String) -> String {
        "VOICEBRIDGE_" + key.uppercased().replacingOccurrences(of: ".", with: "_")
    }

    /// The value for `key`: environment first (the override), then the file.
    func lookup(_ key: String, aliases: [String]) -> Entry? {
        for name in [Self.environmentName(for: key)] + aliases {
            if let raw = environment[name] {
                return Entry(value: .scalar(raw), origin: "environment \(name)")
            }
        }
        return fileEntries[key]
    }

    var fileKeys: Set<String> { Set(fileEntries.keys) }
    /// Every key the file writes, a bare `key:` (not set) included: what a misspelling check and
    /// the example file's completeness look at.
    var writtenKeys: Set<String> { fileKeys.union(bareKeys) }

    private mutating func flatten(_ mapping: Node.Mapping, prefix: String, fileName: String) throws {
        for (keyNode, valueNode) in mapping {
            guard let name = keyNode.string else {
                throw ConfigError(key: prefix + "?", problem: "keys must be strings", origin: origin(keyNode, fileName))
            }
            let key = prefix + name
            switch valueNode {
            case .mapping(let nested):
                // `routes: {}` is written but holds nothing, like a bare key.
                if nested.isEmpty { bareKeys.insert(key) }
                try flatten(nested, prefix: key + ".", fileName: fileName)
            case .sequence(let sequence):
                var items: [String] = []
                for item in sequence {
                    guard let text = item.string, item.scalar != nil else {
                        throw ConfigError(key: key, problem: "list items must be plain values", origin: origin(item, fileName))
                    }
                    items.append(text)
                }
                fileEntries[key] = Entry(value: .list(items), origin: origin(valueNode, fileName))
            case .scalar(let scalar):
                // A bare `key:` is YAML null: treat it as not set, so the default applies.
                if scalar.string == "~" || scalar.string == "null" || (scalar.string.isEmpty && scalar.style == .plain) {
                    bareKeys.insert(key)
                    continue
                }
                fileEntries[key] = Entry(value: .scalar(scalar.string), origin: origin(valueNode, fileName))
            case .alias:
                throw ConfigError(key: key, problem: "YAML aliases are not supported", origin: origin(valueNode, fileName))
            }
        }
    }

    private func origin(_ node: Node, _ fileName: String) -> String {
        guard let mark = node.mark else { return fileName }
        return "\(fileName):\(mark.line)"
    }
}
