import Foundation

/// A minimal RIFF/WAVE reader (the fixtures, an operator's hold music): finds the `fmt ` and
/// `data` chunks, nothing more.
public struct WAVFile: Sendable {
    public var format: Int
    public var channels: Int
    public var sampleRate: Int
    public var bitsPerSample: Int
    public var data: [UInt8]

    public var samples: [Int16] {
        PCM16.samples(data)
    }

    /// One channel of 16-bit interleaved audio (0 is the left).
    public func channel(_ index: Int) -> [Int16] {
        let all = samples
        return stride(from: index, to: all.count, by: max(1, channels)).map { all[$0] }
    }

    public struct Malformed: Error, CustomStringConvertible {
        public var description: String { "not a RIFF/WAVE file, or a chunk runs past its end" }
        public init() {}
    }

    public static func read(_ url: URL) throws -> WAVFile {
        try parse([UInt8](try Data(contentsOf: url)))
    }

    /// `streamed`: the WAV a program writes to a pipe (espeak-ng's `--stdout`), whose sizes it
    /// could not go back and fill in: a `data` chunk that runs past the end holds what is there.
    /// Otherwise a chunk that runs past the end is `Malformed`.
    public static func parse(_ bytes: [UInt8], streamed: Bool = false) throws(Malformed) -> WAVFile {
        guard bytes.count >= 12, bytes[0..<4].elementsEqual("RIFF".utf8), bytes[8..<12].elementsEqual("WAVE".utf8) else { throw Malformed() }
        func u32(_ i: Int) -> Int { Int(bytes[i]) | Int(bytes[i + 1]) << 8 | Int(bytes[i + 2]) << 16 | Int(bytes[i + 3]) << 24 }
        func u16(_ i: Int) -> Int { Int(bytes[i]) | Int(bytes[i + 1]) << 8 }
        var offset = 12
        var wav = WAVFile(format: 0, channels: 0, sampleRate: 0, bitsPerSample: 0, data: [])
        while offset + 8 <= bytes.count {
            let id = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            let size = u32(offset + 4)
            let body = offset + 8
            if streamed, id == "data", body + size > bytes.count {
                wav.data = Array(bytes[body...])
                break
            }
            guard body + size <= bytes.count else { throw Malformed() }
            if id == "fmt " {
                wav.format = u16(body); wav.channels = u16(body + 2)
                wav.sampleRate = u32(body + 4); wav.bitsPerSample = u16(body + 14)
            } else if id == "data" {
                wav.data = Array(bytes[body..<body + size])
            }
            offset = body + size + (size & 1)
        }
        return wav
    }
}
