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

    /// Answering machines' greetings, by `<voicemail …>` name.
    static let machineGreetings = [
        "long": "Hello, you have reached the voicemail of Alex Morgan at Morgan and Partners. I cannot take your call right now. "
            + "Please leave your name, your number and a short message after the tone, and I will call you back.",
        "short": "Hi, this is Sam. Please leave a message after the tone.",
        "ko": "지금은 전화를 받을 수 없습니다. 삐 소리가 나면 음성 사서함에 메시지를 남겨 주세요.",
    ]

    /// 500 ms of 1 kHz at −10 dBFS: an answering machine's beep.
    static let beep: [UInt8] = G711.encode((0..<4000).map { Int16(10_362 * sin(2 * Double.pi * 1000 * Double($0) / 8000)) }, law: .muLaw)

    /// Mains buzz: 100 Hz and its odd harmonics (a clipped hum) around −14 dBFS, as μ-law.
    static func hum(milliseconds: Int) -> [UInt8] {
        G711.encode((0..<milliseconds * 8).map { n in
            let t = 2 * Double.pi * 100 * Double(n) / 8000
            return Int16(6000 * (sin(t) + sin(3 * t) / 3 + sin(5 * t) / 5))
        }, law: .muLaw)
    }

    /// Hold music: a bright arpeggio (C, E, G, C — each note 250 ms with three harmonics, struck
    /// and dying away) over a low sustained C, around −14 dBFS, for as long as asked; no words in it.
    static func holdMusic(milliseconds: Int) -> [UInt8] {
        let notes = [523.25, 659.25, 783.99, 1046.5]
        let noteSamples = 2000
        return G711.encode((0..<milliseconds * 8).map { n in
            let t = Double(n) / 8000
            let note = notes[(n / noteSamples) % notes.count]
            let struck = Double(n % noteSamples) / 8000
            let envelope = exp(-struck * 6)
            let melody = (1...3).reduce(0.0) { sum, h in sum + sin(2 * Double.pi * note * Double(h) * t) / Double(h * h) }
            let bass = sin(2 * Double.pi * 130.81 * t) * 0.35
            return Int16(5200 * (melody * envelope + bass))
        }, law: .muLaw)
    }

    static func silence(milliseconds: Int) -> [UInt8] { G711.encode([Int16](repeating: 0, count: milliseconds * 8), law: .muLaw) }
}
