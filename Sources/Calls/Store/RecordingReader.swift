import Foundation
import NIOPosix

/// A call's recording read from disk a block at a time, as the WAV it holds — never whole in
/// memory, so a request (or a seek in `<audio>`, each a range request) costs a block, not the
/// file. A plain WAV is read as it lies; a sealed one (`SealedRecording`) is located segment by
/// segment from their length prefixes, and only the segments a range touches are opened.
public struct RecordingReader: Sendable {
    /// The WAV's size in bytes.
    public let size: Int
    let path: String
    let layout: Layout

    enum Layout: Sendable {
        case plain
        /// The WAV header (from the final segment, or made for a recording cut short), then the
        /// audio segments in order: where each lies in the file and how many audio bytes it holds.
        case sealed(header: Data, segments: [Segment], keyID: String, cipher: StorageCipher)
    }

    struct Segment: Sendable {
        let fileOffset: Int
        let sealedLength: Int
        var audioBytes: Int { sealedLength - SealedRecording.sealOverhead }
    }

    /// Reads where `path`'s segments lie (for a sealed file, opening only its last segment).
    public static func open(path: String, cipher: StorageCipher?) async throws -> RecordingReader {
        try await NIOThreadPool.singleton.runIfActive {
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            defer { try? handle.close() }
            let fileSize = Int(try handle.seekToEnd())
            try handle.seek(toOffset: 0)
            let head = try handle.read(upToCount: SealedRecording.fileHeaderBytes) ?? Data()
            guard let keyID = SealedRecording.keyID(head) else {
                return RecordingReader(size: fileSize, path: path, layout: .plain)
            }
            guard let cipher else { throw StorageCipher.Failure.unknownKey(keyID) }
            var segments: [Segment] = []
            var at = SealedRecording.fileHeaderBytes
            while at + 4 <= fileSize {
                try handle.seek(toOffset: UInt64(at))
                let prefix = try handle.read(upToCount: 4) ?? Data()
                let n = prefix.reduce(0) { $0 << 8 | Int($1) }
                guard prefix.count == 4, n > SealedRecording.sealOverhead, at + 4 + n <= fileSize else { break }   // torn: cut short
                segments.append(Segment(fileOffset: at + 4, sealedLength: n))
                at += 4 + n
            }
            var header: Data?
            if let last = segments.last {   // the final segment is the WAV header, written when the call ended
                try handle.seek(toOffset: UInt64(last.fileOffset))
                let sealed = try handle.read(upToCount: last.sealedLength) ?? Data()
                if let plain = try? cipher.open(sealed, keyID: keyID, context: SealedRecording.context(index: segments.count - 1, final: true)) {
                    header = plain
                    segments.removeLast()
                }
            }
            let audio = segments.reduce(0) { $0 + $1.audioBytes }
            let wavHeader = header ?? CallRecorder.header(dataBytes: audio)
            return RecordingReader(size: wavHeader.count + audio, path: path,
                                   layout: .sealed(header: wavHeader, segments: segments, keyID: keyID, cipher: cipher))
        }
    }

    /// Hands `range` of the WAV to `write` in blocks of at most `block` bytes (plain) or a segment.
    /// The file is opened once for the whole range.
    public func read(_ range: Range<Int>, block: Int = 64 * 1024, into write: (Data) async throws -> Void) async throws {
        let file = try await NIOThreadPool.singleton.runIfActive { try FileHandle(forReadingFrom: URL(fileURLWithPath: path)) }
        defer { try? file.close() }
        switch layout {
        case .plain:
            var at = range.lowerBound
            while at < range.upperBound {
                let data = try await Self.read(file, offset: at, count: min(block, range.upperBound - at))
                guard !data.isEmpty else { throw CocoaError(.fileReadCorruptFile) }
                try await write(data)
                at += data.count
            }
        case .sealed(let header, let segments, let keyID, let cipher):
            if range.lowerBound < header.count {
                try await write(header[min(range.lowerBound, header.count) ..< min(range.upperBound, header.count)])
            }
            var start = header.count
            for (index, segment) in segments.enumerated() {
                let end = start + segment.audioBytes
                defer { start = end }
                guard end > range.lowerBound, start < range.upperBound else { continue }
                let sealed = try await Self.read(file, offset: segment.fileOffset, count: segment.sealedLength)
                let plain = try cipher.open(sealed, keyID: keyID, context: SealedRecording.context(index: index, final: false))
                try await write(plain[(max(range.lowerBound, start) - start) ..< (min(range.upperBound, end) - start)])
                if end >= range.upperBound { break }
            }
        }
    }

    /// All of it, in memory (tools and tests; the API streams).
    public func wholeWAV() async throws -> Data {
        var out = Data()
        try await read(0..<size) { out += $0 }
        return out
    }

    private static func read(_ file: FileHandle, offset: Int, count: Int) async throws -> Data {
        try await NIOThreadPool.singleton.runIfActive {
            try file.seek(toOffset: UInt64(offset))
            return try file.read(upToCount: count) ?? Data()
        }
    }
}
