import Dialogue
import Flows
import Foundation
import Realtime
import Tools

/// What a flow's call gathered, as stored in `calls.flow_result`: the steps it went through and
/// its fields. (The outcome has a column of its own.)
public struct CallFlowResult: Codable, Sendable, Equatable {
    public var path: [String]
    public var fields: [String: FlowFieldValue]

    /// nil for a call that ran no flow.
    init?(_ result: ConversationResult) {
        guard let path = result.flowPath else { return nil }
        self.path = path
        fields = result.fields ?? [:]
    }

    /// The stored JSON, opened; nil for a call that ran no flow.
    public init?(stored json: String?) throws {
        guard let json else { return nil }
        self = try JSONDecoder().decode(Self.self, from: Data(json.utf8))
    }

    /// Each field as its type says (`true`, `6`, `"2026-11-27T14:00"`), null when not answered.
    public var typedFields: [String: JSONValue] { fields.mapValues(\.json) }
}
