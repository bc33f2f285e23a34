import Foundation

/// Seed 000's in-band task-state report: `[TASK_STATE]{json}[/TASK_STATE]` inside the model's text.
///
/// LLM engines report goal progress through the `update_task_state` tool; models that cannot call
/// tools write this tag instead. The tag must never reach text-to-speech, and it may arrive split
/// across streamed chunks, so `TaskStateTag.Scanner` holds back anything that could be the start
/// of a tag until it knows.
public enum TaskStateTag {
    static let open = "[TASK_STATE]"
    static let close = "[/TASK_STATE]"

    /// Splits complete text into what may be spoken and the JSON bodies of the tags it held.
    public static func extract(from text: String) -> (spoken: String, reports: [String]) {
        var scanner = Scanner()
        var out = scanner.feed(text)
        out.spoken += scanner.finish()
        return out
    }

    /// Incremental form of `extract` for streamed model output.
    public struct Scanner: Sendable {
        private var buffer = ""
        private var insideTag = false

        public init() {}

        /// Feeds the next chunk; returns the text safe to speak now and any completed tag bodies.
        public mutating func feed(_ chunk: String) -> (spoken: String, reports: [String]) {
            buffer += chunk
            var spoken = ""
            var reports: [String] = []
            while true {
                if insideTag {
                    guard let end = buffer.range(of: TaskStateTag.close) else { break }
                    reports.append(buffer[..<end.lowerBound].trimmingWhitespace())
                    buffer.removeSubrange(..<end.upperBound)
                    insideTag = false
                } else if let start = buffer.range(of: TaskStateTag.open) {
                    spoken += buffer[..<start.lowerBound]
                    buffer.removeSubrange(..<start.upperBound)
                    insideTag = true
                } else {
                    // Keep back a suffix that could still grow into "[TASK_STATE]".
                    let keep = Self.partialOpenSuffixLength(buffer)
                    let cut = buffer.index(buffer.endIndex, offsetBy: -keep)
                    spoken += buffer[..<cut]
                    buffer.removeSubrange(..<cut)
                    break
                }
            }
            return (spoken, reports)
        }

        /// End of stream: text held back is spoken; an unterminated tag is dropped, never spoken.
        public mutating func finish() -> String {
            defer { buffer = ""; insideTag = false }
            return insideTag ? "" : buffer
        }

        static func partialOpenSuffixLength(_ text: String) -> Int {
            let open = TaskStateTag.open
            for length in stride(from: min(open.count - 1, text.count), to: 0, by: -1)
            where text.hasSuffix(open.prefix(length)) {
                return length
            }
            return 0
        }
    }
}

extension Substring {
    func trimmingWhitespace() -> String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
