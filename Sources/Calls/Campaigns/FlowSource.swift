import Flows
import Foundation
import Yams

/// A flow as an API body carries it: the JSON object, or text (YAML, or JSON in a string) as the
/// dashboard's editor sends it.
public enum FlowSource: Decodable, Sendable {
    case flow(Flow)
    case text(String)

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            self = .text(text)
        } else {
            self = .flow(try container.decode(Flow.self))
        }
    }

    /// The flow, or a problem naming `flow` (YAML's own message, with its line).
    public func flow() throws(ValidationError) -> Flow {
        switch self {
        case .flow(let flow): return flow
        case .text(let text):
            do {
                try BoundedYAML.check(text)
                return try YAMLDecoder().decode(Flow.self, from: text)
            } catch let refusal as BoundedYAML.Refusal {
                throw ValidationError(fields: [.init(name: "flow", message: refusal.message)])
            } catch let error as DecodingError {
                throw ValidationError(fields: [.init(name: "flow", message: "is not a flow: " + Self.describe(error))])
            } catch {
                throw ValidationError(fields: [.init(name: "flow", message: "is not valid YAML or JSON: \(error)")])
            }
        }
    }

    /// What a decoding error says, with where: `steps.2.next: expected a string`.
    static func describe(_ error: DecodingError) -> String {
        func path(_ keys: [any CodingKey]) -> String { keys.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".") }
        switch error {
        case .keyNotFound(let key, let context): return "\(path(context.codingPath + [key])) is missing"
        case .typeMismatch(let type, let context): return "\(path(context.codingPath)): expected \(type)"
        case .valueNotFound(let type, let context): return "\(path(context.codingPath)): expected \(type)"
        case .dataCorrupted(let context): return (context.codingPath.isEmpty ? "" : path(context.codingPath) + ": ") + context.debugDescription
        @unknown default: return "\(error)"
        }
    }
}
