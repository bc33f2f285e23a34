import Foundation
import Tools

/// A warm transfer's briefing written by the model: what the person who takes the call hears
/// first — who is waiting and what they want, from the conversation so far — as one Chat
/// Completions request. The scripted briefing stands in whenever this fails.
public enum BriefingRequest {
    /// The longest briefing read out; a longer answer is cut at its last full sentence within it.
    public static let maximumCharacters = 400

    /// The request body for `POST {base}/chat/completions`.
    public static func body(_ input: AnalysisInput, reason: String, model: String) -> JSONValue {
        .object([
            "model": .string(model),
            "temperature": .number(0),
            "max_tokens": .integer(120),
            "messages": .array([
                .object(["role": .string("system"), "content": .string("""
                    An AI phone agent is handing a caller to a person. Write what the agent says to that person before \
                    they take the call: who is waiting, what they want and what is already known, in at most two short \
                    sentences (under 40 words), plain spoken text, in the language of the conversation. The call is about: \(input.purpose). \
                    The caller asked for a person because: \(reason).
                    """)]),
                .object(["role": .string("user"), "content": .string(AnalysisRequest.conversation(input))]),
            ]),
        ])
    }

    /// The briefing in a Chat Completions answer; nil when it has none worth reading out.
    public static func text(from response: JSONValue) -> String? {
        guard let content = response["choices"]?.arrayValue?.first?["message"]?["content"]?.stringValue else { return nil }
        let text = content.split(whereSeparator: \.isNewline).joined(separator: " ").trimmingCharacters(in: .whitespaces)
        guard text.count >= 10 else { return nil }
        guard text.count > maximumCharacters else { return text }
        let cut = text.prefix(maximumCharacters)
        if let end = cut.lastIndex(where: { ".!?".contains($0) }) { return String(cut[...end]) }
        return String(cut)
    }
}
