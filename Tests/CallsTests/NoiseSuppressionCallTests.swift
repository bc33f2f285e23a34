import Bridge
import Foundation
import Pipeline
import Testing
import TestLanes
import TestSupport
@testable import Calls

/// A whole call in virtual time from a template that asks for noise suppression, on a server
/// whose `engine.noise_suppression` is off, the callee on a line with street noise 5 dB under
/// their voice: the stage runs on every caller frame and the answer is heard through it. (What it
/// gives and costs across the personas is `make bench`'s `line` and `vad` suites.)
@Suite(.serialized, .tags(.virtualTime)) struct NoiseSuppressionCallTests {
    @Test func aCallOnANoisyLineIsHeardThroughTheSuppressor() async throws {
        let suppression = try NoiseSuppression.installed(in: Fixtures.repository.appendingPathComponent(".deps").path)
        // The noise is levelled against a voice: a fixture's stands for the callee's.
        let voice = try WAVFile.read(Fixtures.audio("en_yes_attend.wav")).samples
        let line = try LineBed(condition: try LineCondition(noise: .street, snrDB: 5), voices: [voice])
        let (call, report, answers) = try await VirtualCallHarness.run(tweak: { $0.inProcessLine = line; $0.noiseSuppression = suppression; $0.noiseSuppressionByDefault = false
        }) { manager, store, clock in
            var request = CallHarness.seedRequest(answers: ["Yes, I will."], questions: ["Can you attend the meeting on Friday?"])
            var template = CallTemplate(name: "noisy line", purpose: request.purpose, questions: request.questions)
            template.noiseSuppression = true
            request.template = try await store.createTemplate(try await manager.acceptable(template)).id
            let id = try await manager.create(request).outboundId
            let call = try await VirtualCallHarness.waitFor(store, id, clock: clock, timeout: .seconds(120)) { $0.state.isTerminal }
            return (call, try #require(try await store.report(callID: id)), try await store.answers(callID: id))
        }.value
        #expect(call.state == .completed, "\(call.state) \(call.failureReason ?? "")")
        #expect(call.noiseSuppression == true, "the template's choice is the call's")
        let denoise = try #require(report.stages.first { $0.side == "caller" && $0.stage == "denoise" }, "\(report.stages.map(\.stage))")
        let decode = try #require(report.stages.first { $0.side == "caller" && $0.stage == "decode" })
        #expect(denoise.framesIn == decode.framesOut && denoise.framesOut == denoise.framesIn)
        #expect(answers.first?.status == .answered && answers.first?.answerSummary == "yes", "\(answers.map { ($0.status, $0.answerText ?? "", $0.answerSummary ?? "") })")
    }
}
