import Pipeline

extension NoiseSuppression {
    /// A clip through a fresh suppressor, 20 ms at a time, as a call's caller side runs it.
    public func suppressed(_ samples: [Int16]) async throws -> [Int16] {
        let suppressor = try await makeSuppressor()
        return stride(from: 0, to: samples.count - 159, by: 160).flatMap { suppressor.suppress(Array(samples[$0..<($0 + 160)])) }
    }
}
