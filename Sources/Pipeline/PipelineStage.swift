/// One step of audio processing: synchronous, cheap per frame, and owned by a single task.
///
/// `process` may return zero, one or several outputs (a resampler can emit nothing for a while,
/// a decoder one frame per packet). `handle` sees control events as they overtake the data, so a
/// stage can drop its own buffered state on interrupt.
public protocol PipelineStage: Sendable {
    associatedtype Input: Sendable
    associatedtype Output: Sendable

    mutating func process(_ input: Input) -> [Output]
    mutating func handle(_ control: ControlEvent) -> [Output]
}

extension PipelineStage {
    public mutating func handle(_ control: ControlEvent) -> [Output] { [] }
}
