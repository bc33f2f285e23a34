/// One step of audio processing: synchronous, cheap per frame, owned by one call.
///
/// `process` hands each result to `emit`, zero, one or several times (a resampler can emit nothing
/// for a while, a re-framer two frames at once), so a chain of stages runs without an array per
/// frame per stage. `handle` sees control events, which overtake the data: a stage drops what it
/// holds on `interrupt`/`flush` and emits it on `end`.
///
/// Stages are fused into one node with `then`; a call's stages are declared in
/// `Sources/Calls/Session/CallPipeline.swift`.
public protocol PipelineStage<Input, Output>: SendableMetatype {
    associatedtype Input
    associatedtype Output

    mutating func process(_ input: Input, emit: (Output) -> Void)
    mutating func handle(_ control: ControlEvent, emit: (Output) -> Void)
}

extension PipelineStage {
    public mutating func handle(_ control: ControlEvent, emit: (Output) -> Void) {}

    /// What one input gives, collected (tests and one-off use; the hot path emits).
    public mutating func outputs(for input: Input) -> [Output] {
        var results: [Output] = []
        process(input) { results.append($0) }
        return results
    }

    /// What a control event gives, collected.
    public mutating func outputs(for control: ControlEvent) -> [Output] {
        var results: [Output] = []
        handle(control) { results.append($0) }
        return results
    }
}
