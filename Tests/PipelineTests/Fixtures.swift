import Foundation

/// Paths to ../shared/fixtures, found from this source file so tests run from any directory.
enum Fixtures {
    static let sharedRoot: URL = {
        if let env = ProcessInfo.processInfo.environment["VOICEBRIDGE_SHARED"] {
            return URL(fileURLWithPath: env)
        }
        // Tests/PipelineTests/Fixtures.swift → repo → its parent holds shared/.
        let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return repo.deletingLastPathComponent().appendingPathComponent("shared")
    }()

    static func audio(_ name: String) -> URL {
        sharedRoot.appendingPathComponent("fixtures/audio").appendingPathComponent(name)
    }
}

/// A minimal RIFF/WAVE reader for the fixtures: finds `fmt ` and `data` chunks, nothing more.
struct WAVFile {
    var format: Int
    var channels: Int
    var sampleRate: Int
    var bitsPerSample: Int
    var data: [UInt8]

    var samples: [Int16] {
        stride(from: 0, to: data.count - 1, by: 2).map { Int16(bitPattern: UInt16(data[$0]) | UInt16(data[$0 + 1]) << 8) }
    }

    struct Malformed: Error {}

    static func read(_ url: URL) throws -> WAVFile {
        let bytes = [UInt8](try Data(contentsOf: url))
        guard bytes.count >= 12, bytes[0..<4].elementsEqual("RIFF".utf8), bytes[8..<12].elementsEqual("WAVE".utf8) else { throw Malformed() }
        func u32(_ i: Int) -> Int { Int(bytes[i]) | Int(bytes[i + 1]) << 8 | Int(bytes[i + 2]) << 16 | Int(bytes[i + 3]) << 24 }
        func u16(_ i: Int) -> Int { Int(bytes[i]) | Int(bytes[i + 1]) << 8 }
        var offset = 12
        var wav = WAVFile(format: 0, channels: 0, sampleRate: 0, bitsPerSample: 0, data: [])
        while offset + 8 <= bytes.count {
            let id = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            let size = u32(offset + 4)
            let body = offset + 8
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
