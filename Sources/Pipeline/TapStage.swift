/// Passes every value on unchanged after showing it to `observe` (a recorder channel, a probe).
public struct TapStage<Value>: PipelineStage {
    private let observe: (Value) -> Void

    public init(_ observe: @escaping (Value) -> Void) { self.observe = observe }

    public func process(_ value: Value, emit: (Value) -> Void) {
        observe(value)
        emit(value)
    }
}
