import Foundation
import Bridge
import Pipeline

/// The simulated callee as an answering machine, and the line's sounds it plays (a beep, a hum,
/// silence).
extension SimulatedCallee {
    /// An answering machine: its greeting, the beep, then silence (recording) until the caller hangs up.
    func answerAsMachine(_ leg: any MediaStreamLeg, greeting: String) async {
        await withDiscardingTaskGroup { group in
            group.addTask { await leg.run() }
            try? await clock.sleep(for: .milliseconds(300))
            if let words = await speech(greeting, voice: tts) { await leg.send(.media(words)) }
            await leg.send(.media(Self.silence(milliseconds: 400) + Self.beep))
            await leg.send(.mark("beep"))
            for await _ in leg.events {}
        }
    }

    /// 500 ms of 1 kHz at −10 dBFS: an answering machine's beep.
    static let beep: [UInt8] = G711.encode((0..<4000).map { Int16(10_362 * sin(2 * Double.pi * 1000 * Double($0) / 8000)) }, law: .muLaw)

    /// Mains buzz: 100 Hz and its odd harmonics (a clipped hum) around −14 dBFS, as μ-law.
    static func hum(milliseconds: Int) -> [UInt8] {
        G711.encode((0..<milliseconds * 8).map { n in
            let t = 2 * Double.pi * 100 * Double(n) / 8000
            return Int16(6000 * (sin(t) + sin(3 * t) / 3 + sin(5 * t) / 5))
        }, law: .muLaw)
    }

    static func silence(milliseconds: Int) -> [UInt8] { G711.encode([Int16](repeating: 0, count: milliseconds * 8), law: .muLaw) }
}
