internal import CYaml
import Yams

/// YAML that an API user sends — a template's flow text, a test suite — checked before Yams builds
/// anything from it, event by event with libyaml (the parser Yams itself runs, so both read the
/// same grammar): at most `maxBytes`, nesting at most `maxDepth`, at most `maxNodes` nodes, and no
/// anchors or aliases. An alias makes a small text into an exponential tree (a 600-byte text whose
/// key expands to 10^10 nodes never finished hashing), and nothing an API user sends needs one.
/// The check reads each byte once, so with the size cap its time is bounded (`BoundedYAMLTests`
/// measures the largest text taken); only then does Yams compose or decode it.
///
/// The configuration file is the operator's own and is not held to this (anchors are common there).
public enum BoundedYAML {
    public struct Limits: Sendable {
        public var maxBytes = 256 * 1024
        public var maxDepth = 64
        public var maxNodes = 100_000
        public init() {}
    }

    public struct Refusal: Error, Equatable, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }

    /// Throws when `text` breaks a limit or uses anchors or aliases; a syntax error is left for the
    /// parser that reads it next to describe (with its line).
    public static func check(_ text: String, limits: Limits = Limits()) throws(Refusal) {
        let utf8 = Array(text.utf8)
        guard utf8.count <= limits.maxBytes else {
            throw Refusal(message: "is larger than \(limits.maxBytes / 1024) KiB")
        }
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else { throw Refusal(message: "could not be read (no memory)") }
        defer { yaml_parser_delete(&parser) }
        try utf8.withUnsafeBufferPointer { (bytes) throws(Refusal) in
            yaml_parser_set_input_string(&parser, bytes.baseAddress, bytes.count)
            var depth = 0
            var nodes = 0
            while true {
                var event = yaml_event_t()
                guard yaml_parser_parse(&parser, &event) == 1 else { return }   // a syntax error: the next parser says where
                defer { yaml_event_delete(&event) }
                switch event.type {
                case YAML_STREAM_END_EVENT:
                    return
                case YAML_ALIAS_EVENT:
                    throw Refusal(message: "uses an alias (*name), which is not accepted here: write the value out")
                case YAML_SCALAR_EVENT:
                    if event.data.scalar.anchor != nil { throw anchorRefusal }
                    nodes += 1
                case YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT:
                    let anchor = event.type == YAML_SEQUENCE_START_EVENT ? event.data.sequence_start.anchor : event.data.mapping_start.anchor
                    if anchor != nil { throw anchorRefusal }
                    nodes += 1
                    depth += 1
                    if depth > limits.maxDepth { throw Refusal(message: "nests deeper than \(limits.maxDepth) levels") }
                case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                    depth -= 1
                default:
                    break
                }
                if nodes > limits.maxNodes { throw Refusal(message: "has more than \(limits.maxNodes) values") }
            }
        }
    }

    private static var anchorRefusal: Refusal { Refusal(message: "uses an anchor (&name), which is not accepted here: write the value out") }

    /// `text` checked, then composed by Yams.
    public static func compose(_ text: String, limits: Limits = Limits()) throws -> Node? {
        try check(text, limits: limits)
        return try Yams.compose(yaml: text)
    }
}
