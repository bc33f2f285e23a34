import Foundation
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

    @Test func blocksAreWrittenByItsOwnTaskWhileTheCallRuns() async throws {
        let path = Self.path()
        let recorder = try CallRecorder(path: path)
        let writer = Task { await recorder.run() }
        for n in 0..<150 { recorder.caller(Self.frame(n)) }   // 3 s
        recorder.agent([Int16](repeating: 7, count: 800))
        let deadline = ContinuousClock.now.advanced(by: .seconds(5))
        while recorder.frames < 16_000, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
        #expect(size == 44 + 2 * 32_000, "two whole seconds on disk before the call ends: \(size ?? -1) bytes")
        writer.cancel()
        await writer.value

        let bytes = recorder.close()
        let wav = try Self.recording(path)
        #expect(bytes == 44 + 3 * 32_000 && wav.data.count == 3 * 32_000)
        #expect(wav.channel(0) == (0..<150).flatMap(Self.frame), "the caller channel is every sample, in order")
        // The agent was quiet for the first 2.8 s (padded while trailing the caller by 200 ms).
        let agentStart = 3 * 8000 - CallRecorder.agentLagSamples
        #expect(wav.channel(1) == [Int16](repeating: 0, count: agentStart) + [Int16](repeating: 7, count: 800) + [Int16](repeating: 0, count: 800),
                "silence, the agent's audio where it came, silence to the end")
        #expect(recorder.droppedSeconds == 0)
    }

    @Test func withoutAWriterAtMostEightSecondsWaitAndTheLossIsCounted() throws {
        let path = Self.path()
        let recorder = try CallRecorder(path: path)
        for n in 0..<600 { recorder.caller(Self.frame(n)) }   // 12 s; nothing writes them
        #expect(recorder.frames == 0, "the caller's side never writes")
        // 11 blocks were cut (the agent side trails by 200 ms of padding): 8 kept, the 3 oldest dropped.
        #expect(recorder.droppedSeconds == 3)
        recorder.close()
        let left = try Self.recording(path).channel(0)
        #expect(left.count == 9 * 8000, "8 kept blocks and the last second")
        #expect(Array(left.prefix(160)) == Self.frame(150), "the recording resumes after the lost seconds")
        #expect(Array(left.suffix(160)) == Self.frame(599))
    }
}
