import Dialogue
import Foundation
import Logging
import Realtime
import TestSupport
import Testing
import Tools
@testable import Calls

// What `serve` (and `doctor`) load for the engine settings, and what stops a server that lacks it.

/// `engine.vad`: which detector the caller side runs, and what happens when Silero is missing.
@Suite struct NeuralVADChoiceTests {
    static func engine(_ mode: VoiceBridgeConfig.EngineMode, _ vad: VoiceBridgeConfig.VADKind, deps: String = ".deps") -> VoiceBridgeConfig.Engine {
        var engine = VoiceBridgeConfig.Engine()
        engine.mode = mode
        engine.vad = vad
        engine.local.moonshinePath = Fixtures.repository.appendingPathComponent(deps).appendingPathComponent("moonshine").path
        return engine
    }

    @Test func autoIsNeuralForTheEnginesThatTakeTurnsByOurVAD() throws {
        let logger = Logger(label: "test")
        #expect(try CallSystem.neuralVAD(for: Self.engine(.local, .auto), logger: logger) != nil)
        #expect(try CallSystem.neuralVAD(for: Self.engine(.cascade, .auto), logger: logger) != nil)
        #expect(try CallSystem.neuralVAD(for: Self.engine(.loopback, .auto), logger: logger) == nil)
        #expect(try CallSystem.neuralVAD(for: Self.engine(.echo, .auto), logger: logger) == nil)
        #expect(try CallSystem.neuralVAD(for: Self.engine(.local, .energy), logger: logger) == nil)
        #expect(try CallSystem.neuralVAD(for: Self.engine(.echo, .neural), logger: logger) != nil)
    }

    @Test func missingSileroStopsAnExplicitChoiceAndOnlyWarnsUnderAuto() throws {
        let logger = Logger(label: "test")
        #expect(try CallSystem.neuralVAD(for: Self.engine(.local, .auto, deps: "nowhere"), logger: logger) == nil)
        #expect(throws: (any Error).self) { try CallSystem.neuralVAD(for: Self.engine(.local, .neural, deps: "nowhere"), logger: logger) }
    }
}

/// `engine.noise_suppression`: DeepFilterNet3 from `make deps` loads when installed, for the calls
/// that ask for it; on, every call uses it, and a server whose folder lacks it does not start,
/// naming the key; off and missing, the server starts without it.
@Suite struct NoiseSuppressionChoiceTests {
    @Test func theSuppressorLoadsWhenInstalledAndItsAbsenceStopsOnlyAServerThatAsksForIt() throws {
        var engine = NeuralVADChoiceTests.engine(.local, .auto)
        #expect(try CallSystem.noiseSuppression(for: engine) != nil, "installed: there for the templates that ask")
        engine.noiseSuppression = true
        #expect(try CallSystem.noiseSuppression(for: engine) != nil)
        engine.local.moonshinePath = Fixtures.repository.appendingPathComponent("nowhere/moonshine").path
        let error = #expect(throws: (any Error).self) { try CallSystem.noiseSuppression(for: engine) }
        #expect("\(error.map { "\($0)" } ?? "")".contains("engine.noise_suppression"), "\(String(describing: error))")
        engine.noiseSuppression = false
        #expect(try CallSystem.noiseSuppression(for: engine) == nil)
    }
}

/// `engine.turn_detection`: `auto` is the model when it is installed, the pause rule (with a
/// warning) when it is not; asked for by name, a missing model stops the server.
@Suite struct TurnDetectionChoiceTests {
    static func engine(_ detection: VoiceBridgeConfig.Engine.Turns.Detection, deps: String = ".deps") -> VoiceBridgeConfig.Engine {
        var engine = NeuralVADChoiceTests.engine(.local, .auto, deps: deps)
        engine.turns.detection = detection
        return engine
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: Fixtures.repository.appendingPathComponent(".deps/smart-turn/smart-turn-v3.2-cpu.onnx").path)))
    func autoIsTheModelWhenInstalled() throws {
        let logger = Logger(label: "test")
        let auto = try CallSystem.turnDetector(for: Self.engine(.auto), logger: logger)
        #expect(auto.model != nil && auto.threshold == 0.8 && auto.ceilingMilliseconds == 1200)
        #expect(try CallSystem.turnDetector(for: Self.engine(.model), logger: logger).model === auto.model, "one model per process")
        #expect(try CallSystem.turnDetector(for: Self.engine(.pause), logger: logger).model == nil)
    }

    @Test func aMissingModelStopsAnExplicitChoiceAndOnlyWarnsUnderAuto() throws {
        let logger = Logger(label: "test")
        #expect(try CallSystem.turnDetector(for: Self.engine(.auto, deps: "nowhere"), logger: logger).model == nil)
        #expect { try CallSystem.turnDetector(for: Self.engine(.model, deps: "nowhere"), logger: logger) } throws: {
            "\($0)".contains("engine.turn_detection model") && "\($0)".contains("make deps")
        }
    }
}
