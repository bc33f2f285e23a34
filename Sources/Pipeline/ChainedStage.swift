/// Two stages run back to back in one task, with no queue between them.
///
/// Queues belong where a policy is needed — live input, a producer faster than real time, the
/// pacer. Between cheap synchronous steps (decode → resample → VAD) a queue only adds a task hop
/// per frame, which at a thousand calls costs more than the audio work itself.
public struct ChainedStage<First: PipelineStage, Second: PipelineStage>: PipelineStage where First.Output == Second.Input {
    public var first: First
    public var second: Second

    public mutating func process(_ input: First.Input) -> [Second.Output] {
        var results: [Second.Output] = []
        for middle in first.process(input) { results += second.process(middle) }
        return results
    }

    /// The first stage sees the event first; what it emits still flows through the second.
    public mutating func handle(_ control: ControlEvent) -> [Second.Output] {
        var results: [Second.Output] = []
        for middle in first.handle(control) { results += second.process(middle) }
        return results + second.handle(control)
    }
}

extension PipelineStage {
    /// `decode.then(resample).then(vad)`: one graph node doing all three.
    public func then<Next: PipelineStage>(_ next: Next) -> ChainedStage<Self, Next> where Next.Input == Output {
        ChainedStage(first: self, second: next)
    }
}
