import Foundation
import Testing
@testable import Calls

/// A recording written under a storage key: sealed block by block as the call runs, the same WAV
/// as a plain recording once opened, and refused when a byte is changed.
@Suite struct SealedRecordingTests {
    /// Feeds the same 2.5 s of caller audio and a little agent audio to a recorder.
    static func record(_ path: String, cipher: StorageCipher?) throws -> Int {
        let clock = CallRecorderTests.FeedClock()
        let recorder = try CallRecorder(path: path, cipher: cipher, frameClock: clock.read)
        for n in 0..<125 { clock.advance(160); recorder.caller(CallRecorderTests.frame(n)) }
        recorder.agent([Int16](repeating: 7, count: 800))
        return recorder.close()
    }

    static func wav(_ path: String, _ cipher: StorageCipher?) async throws -> Data {
        try await RecordingReader.open(path: path, cipher: cipher).wholeWAV()
    }

    /// Any byte range, sealed or plain, reads as the same bytes of the WAV: the header, within one
    /// segment, across segments, the last byte — each read opening only the segments it touches.
    @Test func rangesReadTheSameBytesSealedOrPlain() async throws {
        let cipher = StorageCipher(currentKey: StorageEncryptionTests.keyA)
        let plainPath = CallRecorderTests.path(), sealedPath = CallRecorderTests.path()
        _ = try Self.record(plainPath, cipher: nil)
        _ = try Self.record(sealedPath, cipher: cipher)
        let plain = try Data(contentsOf: URL(fileURLWithPath: plainPath))
        let sealed = try await RecordingReader.open(path: sealedPath, cipher: cipher)
        let unsealed = try await RecordingReader.open(path: plainPath, cipher: nil)
        #expect(sealed.size == plain.count && unsealed.size == plain.count)
        for range in [0..<10, 40..<50, 100..<31_000, 31_990..<32_100, 10..<64_100, (plain.count - 1)..<plain.count, 0..<plain.count] {
            for reader in [sealed, unsealed] {
                var got = Data(), blocks = 0
                try await reader.read(range, block: 16 * 1024) { got += $0; blocks += 1 }
                #expect(got == plain[range], "\(range)")
                #expect(blocks <= range.count / (16 * 1024) + 3, "read in blocks, not whole: \(blocks) for \(range)")
            }
        }
    }

    @Test func aSealedRecordingOpensToTheSameWAVAsAPlainOne() async throws {
        let cipher = StorageCipher(currentKey: StorageEncryptionTests.keyA)
        let plainPath = CallRecorderTests.path(), sealedPath = CallRecorderTests.path()
        let plainSize = try Self.record(plainPath, cipher: nil)
        let sealedSize = try Self.record(sealedPath, cipher: cipher)
        let plain = try Data(contentsOf: URL(fileURLWithPath: plainPath))
        let sealedFile = try Data(contentsOf: URL(fileURLWithPath: sealedPath))
        #expect(plainSize == sealedSize && plainSize == plain.count, "close() reports the WAV's size either way")
        #expect(SealedRecording.keyID(path: sealedPath) == cipher.currentKeyID && SealedRecording.keyID(path: plainPath) == nil)
        #expect(sealedFile.range(of: Data("RIFF".utf8)) == nil && sealedFile.range(of: plain[1000..<1016]) == nil, "no header, no audio in the clear")
        #expect(try await Self.wav(sealedPath, cipher) == plain)
        #expect(try await Self.wav(plainPath, cipher) == plain, "a plain file reads as it is")
        await #expect(throws: StorageCipher.Failure.unknownKey(cipher.currentKeyID)) { try await Self.wav(sealedPath, nil) }
        // Sealed whole (what rekey writes), it opens to the same WAV.
        let rewritten = CallRecorderTests.path()
        try FileManager.default.createDirectory(atPath: (rewritten as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try SealedRecording.seal(wav: plain, cipher: cipher).write(to: URL(fileURLWithPath: rewritten))
        #expect(try await Self.wav(rewritten, cipher) == plain)
    }

    @Test func aChangedByteIsRefusedAndACutShortFileKeepsItsAudio() async throws {
        let cipher = StorageCipher(currentKey: StorageEncryptionTests.keyA)
        let path = CallRecorderTests.path()
        _ = try Self.record(path, cipher: cipher)
        let file = try Data(contentsOf: URL(fileURLWithPath: path))
        var changed = file
        changed[40] ^= 0x01   // inside the first segment
        try changed.write(to: URL(fileURLWithPath: path))
        await #expect(throws: StorageCipher.Failure.damaged(keyID: cipher.currentKeyID)) { try await Self.wav(path, cipher) }

        // A crash before close(): the header segment never came. The blocks written read as audio.
        let firstSegment = 15 + 4 + 12 + 32_000 + 16
        try file.prefix(firstSegment + 10).write(to: URL(fileURLWithPath: path))   // one block and a torn one
        let wav = try await Self.wav(path, cipher)
        #expect(wav.count == 44 + 32_000 && wav.prefix(4) == Data("RIFF".utf8))
    }
}
