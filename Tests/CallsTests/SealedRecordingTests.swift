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

    @Test func aSealedRecordingOpensToTheSameWAVAsAPlainOne() throws {
        let cipher = StorageCipher(currentKey: StorageEncryptionTests.keyA)
        let plainPath = CallRecorderTests.path(), sealedPath = CallRecorderTests.path()
        let plainSize = try Self.record(plainPath, cipher: nil)
        let sealedSize = try Self.record(sealedPath, cipher: cipher)
        let plain = try Data(contentsOf: URL(fileURLWithPath: plainPath))
        let sealedFile = try Data(contentsOf: URL(fileURLWithPath: sealedPath))
        #expect(plainSize == sealedSize && plainSize == plain.count, "close() reports the WAV's size either way")
        #expect(SealedRecording.keyID(path: sealedPath) == cipher.currentKeyID && SealedRecording.keyID(path: plainPath) == nil)
        #expect(sealedFile.range(of: Data("RIFF".utf8)) == nil && sealedFile.range(of: plain[1000..<1016]) == nil, "no header, no audio in the clear")
        #expect(try SealedRecording.wav(path: sealedPath, cipher: cipher) == plain)
        #expect(try SealedRecording.wav(path: plainPath, cipher: cipher) == plain, "a plain file reads as it is")
        #expect(throws: StorageCipher.Failure.unknownKey(cipher.currentKeyID)) { try SealedRecording.wav(path: sealedPath, cipher: nil) }
        // Sealed whole (what rekey writes), it opens to the same WAV.
        let rewritten = CallRecorderTests.path()
        try FileManager.default.createDirectory(atPath: (rewritten as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try SealedRecording.seal(wav: plain, cipher: cipher).write(to: URL(fileURLWithPath: rewritten))
        #expect(try SealedRecording.wav(path: rewritten, cipher: cipher) == plain)
    }

    @Test func aChangedByteIsRefusedAndACutShortFileKeepsItsAudio() throws {
        let cipher = StorageCipher(currentKey: StorageEncryptionTests.keyA)
        let path = CallRecorderTests.path()
        _ = try Self.record(path, cipher: cipher)
        let file = try Data(contentsOf: URL(fileURLWithPath: path))
        var changed = file
        changed[40] ^= 0x01   // inside the first segment
        try changed.write(to: URL(fileURLWithPath: path))
        #expect(throws: StorageCipher.Failure.damaged(keyID: cipher.currentKeyID)) { try SealedRecording.wav(path: path, cipher: cipher) }

        // A crash before close(): the header segment never came. The blocks written read as audio.
        let firstSegment = 15 + 4 + 12 + 32_000 + 16
        try file.prefix(firstSegment + 10).write(to: URL(fileURLWithPath: path))   // one block and a torn one
        let wav = try SealedRecording.wav(path: path, cipher: cipher)
        #expect(wav.count == 44 + 32_000 && wav.prefix(4) == Data("RIFF".utf8))
    }
}
