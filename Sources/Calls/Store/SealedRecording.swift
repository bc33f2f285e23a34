import Foundation

/// A call recording sealed as it is written: a short file header naming the key, then segments
/// (each the recorder's block of audio, sealed on its own with AES-GCM), then the WAV header as
/// the final segment, since the sizes are known only when the call ends.
///
///     "VBREC1" <key id, 8 bytes> "\n"
///     repeated: <length, 4 bytes big-endian> <nonce, ciphertext, tag>
///
/// Each segment authenticates its index and whether it is the final (header) one, so segments
/// cannot be reordered, dropped from the middle, or passed off as the header. A recording cut
/// short by a crash has no final segment: it reads as the audio that was written. `RecordingReader`
/// reads it back.
public enum SealedRecording {
    static let magic = Data("VBREC1".utf8)
    static let keyIDBytes = 8
    static let fileHeaderBytes = magic.count + keyIDBytes + 1   // the key id, then "\n"
    /// AES-GCM's combined form around a segment: the 12-byte nonce and the 16-byte tag.
    static let sealOverhead = 12 + 16

    public static func fileHeader(keyID: String) -> Data { magic + Data(keyID.utf8) + Data("\n".utf8) }

    public static func segment(_ plain: some DataProtocol, index: Int, final: Bool, cipher: StorageCipher) -> Data {
        let sealed = cipher.seal(Data(plain), context: context(index: index, final: final))
        let n = UInt32(sealed.count)
        return Data([UInt8(n >> 24), UInt8((n >> 16) & 0xFF), UInt8((n >> 8) & 0xFF), UInt8(n & 0xFF)]) + sealed
    }

    static func context(index: Int, final: Bool) -> Data {
        Data((0..<8).map { UInt8(truncatingIfNeeded: UInt64(index) >> (56 - 8 * $0)) } + [final ? 1 : 0])
    }

    /// The key a recording file is sealed with; nil for a plain WAV (or a file that cannot be read).
    public static func keyID(path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: fileHeaderBytes) else { return nil }
        return keyID(head)
    }

    static func keyID(_ head: Data) -> String? {
        guard head.count >= fileHeaderBytes, head.prefix(magic.count) == magic else { return nil }
        let id = head.startIndex + magic.count
        return String(decoding: head[id ..< id + keyIDBytes], as: UTF8.self)
    }

    /// `wav` sealed whole, in the recorder's block size (what `voicebridge rekey` writes).
    public static func seal(wav: Data, cipher: StorageCipher) -> Data {
        let headerBytes = min(44, wav.count)
        var out = fileHeader(keyID: cipher.currentKeyID), index = 0
        var at = wav.startIndex + headerBytes
        while at < wav.endIndex {
            let end = min(at + CallRecorder.blockFrames * 4, wav.endIndex)
            out += segment(wav[at..<end], index: index, final: false, cipher: cipher)
            at = end
            index += 1
        }
        return out + segment(wav.prefix(headerBytes), index: index, final: true, cipher: cipher)
    }
}
