import Foundation
import Testing
import TestSupport
@testable import Pipeline

/// The caller side's echo canceller (`EchoCanceller`, `EchoCancelStage`, the pacer's far end
/// through `EchoReference`): the agent's voice returned by the line is taken out, the caller
/// speaking over it is kept.
@Suite struct EchoCancellerTests {
    static func speech(_ names: [String]) throws -> [Int16] {
        try names.flatMap { try WAVFile.read(Fixtures.audio($0)).samples }
    }

    /// The line's echo of `far`: 150 ms later, −10 dB (or `gain`), through a hybrid's smear (two taps).
    static func echo(of far: [Int16], gain: Double = 0.316) -> [Int16] {
        (0..<far.count).map { n in
            let x = { (k: Int) in k >= 0 ? Double(far[k]) : 0 }
            return Int16(clamping: Int((gain * (0.7 * x(n - 1200) + 0.3 * x(n - 1201))).rounded()))
        }
    }

    static func cancelled(heard: [Int16], far: [Int16]) -> [Int16] {
        let canceller = EchoCanceller()
        return stride(from: 0, to: heard.count - 159, by: 160).flatMap { start in
            canceller.cancel(heard: Array(heard[start..<start + 160]), played: Array(far[start..<start + 160]))
        }
    }

    @Test func theAgentsEchoIsTakenOut() throws {
        let far = try Self.speech(["en_greeting.wav", "en_refuse.wav", "en_unclear.wav", "en_thanks.wav"])
        let echo = Self.echo(of: far)
        let out = Self.cancelled(heard: echo, far: far)
        // Once the filter has converged (the first three seconds): how far the echo went down.
        let settled = 24_000..<out.count
        let reduction = 10 * log10(echo[settled].meanSquare / max(out[settled].meanSquare, 1e-9))
        print("the echo \(String(format: "%.1f", reduction)) dB down once the filter has learned it (the gate silences what is left)")
        #expect(reduction >= 20, "the echo only \(reduction) dB down")
    }

    /// A line that returns nothing of the agent, and a caller speaking 12 dB below it while it
    /// talks: after two seconds of the agent the canceller finds no echo, and the caller comes
    /// through untouched. Until 2 Dec the filter went on learning on such a line, and the Geigel
    /// rule (the line 6 dB below the agent is echo) silenced the quiet caller.
    @Test func aLineWithNoEchoKeepsAQuietCallerWhole() throws {
        let far = try Self.speech(["en_greeting.wav", "en_refuse.wav", "en_unclear.wav", "en_thanks.wav"])
        let near = try Self.speech(["en_yes_attend.wav"]).map { Int16($0 / 4) }
        let at = 32_000
        var heard = [Int16](repeating: 0, count: far.count)
        for (i, sample) in near.enumerated() where at + i < heard.count { heard[at + i] = sample }
        let canceller = EchoCanceller()
        var out: [Int16] = []
        for start in stride(from: 0, to: heard.count - 159, by: 160) {
            out += canceller.cancel(heard: Array(heard[start..<start + 160]), played: Array(far[start..<start + 160]))
        }
        #expect(canceller.foundNoEcho)
        let span = at..<min(at + near.count, out.count)
        let untouched = out[span].elementsEqual(heard[span])
        print("the quiet caller over a line with no echo: \(String(format: "%.1f", 10 * log10(max(out[span].meanSquare, 1e-9) / heard[span].meanSquare))) dB of their power kept")
        #expect(untouched, "the caller's audio was changed")
    }

    /// An echo at −10 or −20 dB is not taken for a line with none.
    @Test(arguments: [0.316, 0.1]) func anEchoIsNotTakenForNone(gain: Double) throws {
        let far = try Self.speech(["en_greeting.wav", "en_refuse.wav", "en_unclear.wav"])
        let echo = Self.echo(of: far, gain: gain)
        let canceller = EchoCanceller()
        for start in stride(from: 0, to: far.count - 159, by: 160) {
            _ = canceller.cancel(heard: Array(echo[start..<start + 160]), played: Array(far[start..<start + 160]))
        }
        #expect(!canceller.foundNoEcho)
    }

    /// What the caller side decides from the line: Silero's speech onsets, in samples, with the
    /// echo cancelled or not. The agent talks throughout; the caller says a line 4 s in.
    static func onsets(cancelling: Bool) throws -> (onsets: [Int], callerAt: Int, callerEnds: Int) {
        let model = try #require(SileroVADTests.model)
        let far = try speech(["en_greeting.wav", "en_refuse.wav", "en_unclear.wav", "en_thanks.wav"])
        let near = try speech(["en_yes_attend.wav"])
        let at = 32_000
        var heard = echo(of: far)
        for (i, sample) in near.enumerated() where at + i < heard.count { heard[at + i] = Int16(clamping: Int(heard[at + i]) + Int(sample)) }
        let reference = EchoReference()
        var echoStage: OptionalStage<EchoCancelStage> = cancelling ? .on(EchoCancelStage(reference: reference)) : .off
        var vad = VADStage(neural: model)
        var onsets: [Int] = []
        for start in stride(from: 0, to: heard.count - 159, by: 160) {
            reference.sent(G711.encode(Array(far[start..<start + 160]), law: .muLaw))
            let line = Array(heard[start..<start + 160])
            for frame in echoStage.outputs(for: InboundFrame(payload: G711.encode(line, law: .muLaw), audio: AudioFrame(samples: line, sampleRate: 8000))) {
                for decided in vad.outputs(for: frame) where decided.voice.event == .speechStarted { onsets.append(start) }
            }
        }
        return (onsets, at, at + near.count)
    }

    @Test func theEchoStartsNoSpeechAndTheCallerOverItDoes() throws {
        let line = try Self.onsets(cancelling: false)
        let cancelled = try Self.onsets(cancelling: true)
        print("speech onsets (samples): on the line \(line.onsets), echo cancelled \(cancelled.onsets); the caller from \(cancelled.callerAt)")
        #expect(line.onsets.contains { $0 < line.callerAt || $0 > line.callerEnds }, "uncancelled, the agent's echo is taken for speech")
        #expect(!cancelled.onsets.contains { $0 < cancelled.callerAt || $0 > cancelled.callerEnds }, "cancelled, the echo starts no speech: \(cancelled.onsets)")
        let heard = try #require(cancelled.onsets.first { $0 >= cancelled.callerAt }, "the caller over the echo is heard")
        #expect(heard - cancelled.callerAt <= 2400, "the caller heard \((heard - cancelled.callerAt) / 8) ms after they began")
    }

    /// The stage takes its far end from the pacer: what each tick sent, silence on a tick with
    /// nothing (or held), so the far end stays in step with the line.
    @Test func theStageHoldsTheLineAgainstWhatThePacerSent() throws {
        let pacer = Pacer<[UInt8]>(input: BoundedQueue(capacity: 400, policy: .suspendProducer))
        let reference = EchoReference()
        pacer.observeTicks { reference.sent($0) }
        var stage = EchoCancelStage(reference: reference)
        let far = try Self.speech(["en_greeting.wav", "en_refuse.wav", "en_unclear.wav"])
        let echo = Self.echo(of: far)
        var heard: [Int16] = [], out: [Int16] = []
        for start in stride(from: 0, to: far.count - 159, by: 160) {
            _ = pacer.input.trySend(.audio(G711.encode(Array(far[start..<start + 160]), law: .muLaw), item: "greeting"))
            pacer.tick { _ in }
            let frame = Array(echo[start..<start + 160])
            heard += frame
            for processed in stage.outputs(for: InboundFrame(payload: G711.encode(frame, law: .muLaw), audio: AudioFrame(samples: frame, sampleRate: 8000))) {
                #expect(processed.payload == G711.encode(processed.audio.samples, law: .muLaw), "the μ-law says what the samples say")
                out += processed.audio.samples
            }
        }
        let settled = 24_000..<out.count
        let reduction = 10 * log10(heard[settled].meanSquare / max(out[settled].meanSquare, 1e-9))
        #expect(reduction >= 15, "through the pacer's far end, the echo only \(reduction) dB down")
        let ticks = Locked<[[UInt8]?]>([])
        pacer.observeTicks { frame in ticks.withLock { $0.append(frame) } }
        pacer.tick { _ in }   // nothing queued: silence
        #expect(ticks.value.count == 1 && ticks.value.first == .some(nil))
    }
}
