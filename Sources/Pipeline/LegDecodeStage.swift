/// A 20 ms frame as a call leg delivers it: G.711 μ-law, the phone band every stage works in, and
/// for a wideband leg (the dashboard's microphone) the same 20 ms at 16 kHz as it came.
public struct LegFrame: Sendable {
    public var payload: [UInt8]
    /// 320 samples at 16 kHz, or nil (a phone line has nothing above its band).
    public var wideband: [Int16]?

    public init(payload: [UInt8], wideband: [Int16]? = nil) {
        self.payload = payload
        self.wideband = wideband
    }
}

/// The caller side's first stage: the μ-law decoded (`G711DecodeStage`), the wideband copy carried
/// along for the engine (`EngineRateStage` takes it instead of the phone band where it can).
public struct LegDecodeStage: PipelineStage {
    private var decode = G711DecodeStage(law: .muLaw)

    public init() {}

    public mutating func process(_ frame: LegFrame, emit: (InboundFrame) -> Void) {
        decode.process(frame.payload) { decoded in
            var decoded = decoded
            decoded.wideband = frame.wideband
            emit(decoded)
        }
    }
}
