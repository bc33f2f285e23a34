import Foundation
import Synchronization
import Testing
import TestSupport
@testable import Calls

/// The call recording: a stereo WAV written in one-second blocks by the recorder's own task while
/// the call runs (the socket's event loop only cuts them), the rest and the sizes at `close()`.
@Suite struct CallRecorderTests {
    static func path() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("vb-rec-\(UUID().uuidString)/call.wav").path
    }

    /// 20 ms of caller audio, numbered so order shows: frame n holds n, n+1, ….
    static func frame(_ n: Int) -> [Int16] { (0..<160).map { Int16(truncatingIfNeeded: n * 160 + $0) } }

    /// The recording, checked to be 8 kHz 16-bit stereo PCM with consistent chunk sizes.
    static func recording(_ path: String) throws -> WAVFile {
        let wav = try WAVFile.read(URL(fileURLWithPath: path))
        #expect(wav.format == 1 && wav.channels == 2 && wav.sampleRate == 8000 && wav.bitsPerSample == 16)
        return wav
    }

    /// A clock the test moves: frames fed so far stand for the time that passed.
    final class FeedClock: Sendable {
        let frames = Atomic<Int>(0)
        func advance(_ n: Int) { frames.add(n, ordering: .relaxed) }
        var read: @Sendable () -> Int { { self.frames.load(ordering: .relaxed) } }
    }

    @Test func blocksAreWrittenByItsOwnTaskWhileTheCallRuns() async throws {
        let path = Self.path()
        let clock = FeedClock()
        let recorder = try CallRecorder(path: path, frameClock: clock.read)
        let writer = Task { await recorder.run() }
        for n in 0..<150 { clock.advance(160); recorder.caller(Self.frame(n)) }   // 3 s
        recorder.agent([Int16](repeating: 7, count: 800))
        let deadline = ContinuousClock.now.advanced(by: .seconds(5))
        while recorder.frames < 24_000, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
        #expect(size == 44 + 3 * 32_000, "three whole seconds on disk before the call ends: \(size ?? -1) bytes")
        writer.cancel()
        await writer.value

        let bytes = recorder.close()
        let wav = try Self.recording(path)
        #expect(bytes == 44 + (3 * 8000 + 800) * 4 && wav.data.count == (3 * 8000 + 800) * 4)
        #expect(wav.channel(0) == (0..<150).flatMap(Self.frame) + [Int16](repeating: 0, count: 800), "the caller channel is every sample, in order")
        // The agent was quiet for the first 3 s and spoke at 3 s, when its audio was sent.
        #expect(wav.channel(1) == [Int16](repeating: 0, count: 3 * 8000) + [Int16](repeating: 7, count: 800),
                "silence, then the agent's audio where it came")
        #expect(recorder.droppedSeconds == 0)
    }

    @Test func withoutAWriterAtMostEightSecondsWaitAndTheLossIsCounted() throws {
        let path = Self.path()
        let clock = FeedClock()
        let recorder = try CallRecorder(path: path, frameClock: clock.read)
        for n in 0..<600 { clock.advance(160); recorder.caller(Self.frame(n)) }   // 12 s; nothing writes them
        #expect(recorder.frames == 0, "the caller's side never writes")
        // 11 blocks were cut (the agent side trails by 200 ms of padding): 8 kept, the 3 oldest dropped.
        #expect(recorder.droppedSeconds == 3)
        recorder.close()
        let left = try Self.recording(path).channel(0)
        #expect(left.count == 9 * 8000, "8 kept blocks and the last second")
        #expect(Array(left.prefix(160)) == Self.frame(150), "the recording resumes after the lost seconds")
        #expect(Array(left.suffix(160)) == Self.frame(599))
    }

    /// A peer with silence suppression sends nothing while quiet: the pause keeps its length in
    /// the file (it was squeezed out before, and the transcript's times drifted off the audio).
    @Test func pausesWithoutPacketsKeepTheirLength() throws {
        let path = Self.path()
        let clock = FeedClock()
        let recorder = try CallRecorder(path: path, frameClock: clock.read)
        for n in 0..<10 { clock.advance(160); recorder.caller(Self.frame(n)) }   // 200 ms
        clock.advance(6400 - 1600)
        recorder.agent([Int16](repeating: 7, count: 800))   // at 0.8 s, after a pause: heard from now
        clock.advance(12_000 - 6400)
        recorder.caller(Self.frame(10))                    // at 1.5 s, after 1.3 s without a packet
        recorder.close()
        let wav = try Self.recording(path)
        let caller = wav.channel(0), agent = wav.channel(1)
        #expect(Array(caller.prefix(1600)) == (0..<10).flatMap(Self.frame))
        #expect(Array(caller[1600..<(12_000 - 160)]).allSatisfy { $0 == 0 } && Array(caller[(12_000 - 160)...]) == Self.frame(10),
                "the caller resumes where it was heard, 1.48 s in")
        #expect(agent.firstIndex(of: 7) == 6400, "the agent is placed when it was sent after a pause")
    }

    /// Frames that waited behind a busy caller side (the leg took them in on time; they reach
    /// the recorder 300 ms late, all at once) stay where they arrived: the caller's next words
    /// are not pushed 300 ms later in the file than they were said.
    @Test func aBacklogStaysWhereItArrived() throws {
        let path = Self.path()
        let clock = FeedClock()
        let recorder = try CallRecorder(path: path, frameClock: clock.read)
        for n in 0..<10 { clock.advance(160); recorder.caller(Self.frame(n)) }   // 200 ms on time
        clock.advance(15 * 160)                                                  // 300 ms: nothing reaches it
        for n in 10..<25 { recorder.caller(Self.frame(n), waited: .milliseconds(20 * (24 - n))) }
        for n in 25..<35 { clock.advance(160); recorder.caller(Self.frame(n)) }  // on time again
        recorder.close()
        let caller = try Self.recording(path).channel(0)
        #expect(Array(caller.prefix(35 * 160)) == (0..<35).flatMap(Self.frame), "one unbroken stream, as it was said")
        #expect(caller.count == 35 * 160, "no gap was put in: \(caller.count) samples")
    }
}
