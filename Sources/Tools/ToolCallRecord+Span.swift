import TraceContext
import Tracing

extension ToolCallRecord {
    /// Runs one tool call as a span of the call's trace, when this node traces it (OpenTelemetry's
    /// GenAI conventions: `execute_tool <name>`); its requests are children of that span. The
    /// span says how the call went (`status` of the result), never its arguments or its answer.
    /// The operator's tools (`ToolRunner`) and the offline engine's own knowledge search share it.
    public static func traced<T>(tool name: String, _ body: () async -> T, status: (T) -> Status) async -> T {
        await TraceParent.withSpan("execute_tool \(name)", attributes: ["gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": .string(name)]) {
            await body()
        } ending: { result, span in
            let status = status(result)
            span.attributes["voicebridge.tool.status"] = status.rawValue
            if status != .ok { span.setStatus(SpanStatus(code: .error, message: status.rawValue)) }
        }
    }
}
