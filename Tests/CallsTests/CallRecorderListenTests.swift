import Foundation
import Pipeline
import Testing
import TestSupport
@testable import Calls

/// Listening to a recording as it is written: a listener gets the file's blocks as they are
/// written, one side or both mixed; it ends with the call; one that does not read stays bounded.
@Suite struct CallRecorderListenTests {
    @Test func aListenerGetsTheBlocksAsWrittenAndTheStreamEndsWithTheCall() async throws {
        let path = CallRecorderTests.path()
        let clock = CallRecorderTests.FeedClock()
        let recorder = try CallRecorder(path: path, frameClock: clock.read)
        let listener = recorder.listen()
        let idle = recorder.listen()   // never read: keeps the newest 3 blocks, no more
        let writer = Task { await recorder.run() }
        var blocks = listener.makeAsyncIterator()
        var heard: [[UInt8]] = []
        for second in 0..<5 {   // the caller counts up, the agent says 7; a second at a time, read as it comes
            for n in (50 * second)..<(50 * second + 50) {
                clock.advance(160)
                recorder.caller(CallRecorderTests.frame(n))
                recorder.agent([Int16](repeating: 7, count: 160))
            }
            if second < 4, let block = await blocks.next() { heard.append(block) }
        }
        _ = recorder.close()
        writer.cancel()
        #expect(heard.count == 4 && heard.allSatisfy { $0.count == 32_000 }, "1 s stereo blocks: \(heard.map(\.count))")
        let wav = try CallRecorderTests.recording(path)
        #expect(Array(heard.joined()) == Array(wav.data.prefix(4 * 32_000)), "what the listener heard is the file")
        let caller = CallRecorder.mono(heard[0], side: .caller), agent = CallRecorder.mono(heard[0], side: .agent), both = CallRecorder.mono(heard[0], side: .mixed)
        let sample = { (pcm: [UInt8], i: Int) in Int16(bitPattern: UInt16(pcm[2 * i]) | UInt16(pcm[2 * i + 1]) << 8) }
        // The agent's audio goes in as it is sent, just after the caller's frame that came with it.
        #expect(sample(caller, 200) == 200 && sample(agent, 200) == 7 && sample(both, 200) == 207)
        var kept = 0
        for await _ in idle { kept += 1 }
        #expect(kept == 3, "a listener that does not read keeps the newest three seconds (\(kept))")
        var late = 0
        for await _ in recorder.listen() { late += 1 }
        #expect(late == 0, "after the call, listening ends at once")
    }
}
