/// Two stages run back to back where the frame is, with no queue between them.
///
/// Queues belong where a policy is needed — live input, a producer faster than real time, the
/// pacer. Between cheap synchronous steps (decode → VAD → resample) a queue only adds a task hop
/// per frame, which at a thousand calls costs more than the audio work itself. The chain is a
/// concrete generic type, so the compiler specialises and inlines the whole declaration.
public struct ChainedStage<First: PipelineStage, Second: PipelineStage>: PipelineStage where First.Output == Second.Input {
    public var first: First
    public var second: Second

    @inlinable
    public init(first: First, second: Second) {
        self.first = first
        self.second = second
    }

    @inlinable
    public mutating func process(_ input: First.Input, emit: (Second.Output) -> Void) {
        first.process(input) { second.process($0, emit: emit) }
    }

    /// The first stage sees the event first; what it emits still flows through the second.
    @inlinable
    public mutating func handle(_ control: ControlEvent, emit: (Second.Output) -> Void) {
        first.handle(control) { second.process($0, emit: emit) }
        second.handle(control, emit: emit)
    }
}

extension ChainedStage: Sendable where First: Sendable, Second: Sendable {}

extension PipelineStage {
    /// `decode.then(vad).then(resample)`: one node doing all three.
    @inlinable
    public func then<Next: PipelineStage>(_ next: Next) -> ChainedStage<Self, Next> where Next.Input == Output {
        ChainedStage(first: self, second: next)
    }
}
