/// A stage a call may leave out (echo cancellation where the operator turned it off): `off`
/// passes every frame on untouched, and costs no meter.
public enum OptionalStage<Inner: PipelineStage>: PipelineStage where Inner.Input == Inner.Output {
    case on(Inner)
    case off

    public mutating func process(_ input: Inner.Input, emit: (Inner.Output) -> Void) {
        guard case .on(var inner) = self else { return emit(input) }
        self = .off   // no second reference while the stage mutates (no copy on write)
        inner.process(input, emit: emit)
        self = .on(inner)
    }

    public mutating func handle(_ control: ControlEvent, emit: (Inner.Output) -> Void) {
        guard case .on(var inner) = self else { return }
        self = .off
        inner.handle(control, emit: emit)
        self = .on(inner)
    }
}
