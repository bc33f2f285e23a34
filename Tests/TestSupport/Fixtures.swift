import Foundation

/// Paths to ../shared/fixtures, found from this source file so tests run from any directory.
public enum Fixtures {
    public static let sharedRoot: URL = {
        if let env = ProcessInfo.processInfo.environment["VOICEBRIDGE_SHARED"] {
            return URL(fileURLWithPath: env)
        }
        // Tests/TestSupport/Fixtures.swift → repo → its parent holds shared/.
        let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return repo.deletingLastPathComponent().appendingPathComponent("shared")
    }()

    /// The repository's root folder.
    public static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Where `make deps` installs Moonshine.
    public static var moonshine: String { repository.appendingPathComponent(".deps/moonshine").path }

    public static func audio(_ name: String) -> URL {
        sharedRoot.appendingPathComponent("fixtures/audio").appendingPathComponent(name)
    }
}

/// A minimal RIFF/WAVE reader for the fixtures: finds `fmt ` and `data` chunks, nothing more.
public struct WAVFile: Sendable {
    public var format: Int
    public var channels: Int
    public var sampleRate: Int
    public var bitsPerSample: Int
    public var data: [UInt8]

    public var samples: [Int16] {
        stride(from: 0, to: data.count - 1, by: 2).map { Int16(bitPattern: UInt16(data[$0]) | UInt16(data[$0 + 1]) << 8) }
    }

    /// One channel of 16-bit interleaved audio (0 is the left).
    public func channel(_ index: Int) -> [Int16] {
        let all = samples
        return stride(from: index, to: all.count, by: max(1, channels)).map { all[$0] }
    }

    public struct Malformed: Error {}

    public static func read(_ url: URL) throws -> WAVFile {
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

/// Normalised cross-correlation of `b` against `a` at the best lag in -maxLag...maxLag.
/// Coarse to fine: the lag is found on signals decimated by 4, then refined at full rate.
public func bestCorrelation(_ a: [Int16], _ b: [Int16], maxLag: Int) -> (value: Double, lag: Int) {
    let da = stride(from: 0, to: a.count, by: 4).map { a[$0] }
    let db = stride(from: 0, to: b.count, by: 4).map { b[$0] }
    let coarse = correlationSearch(da, db, lags: Array(-(maxLag / 4)...(maxLag / 4)))
    return correlationSearch(a, b, lags: Array((coarse.lag * 4 - 8)...(coarse.lag * 4 + 8)))
}

func correlationSearch(_ a: [Int16], _ b: [Int16], lags: [Int]) -> (value: Double, lag: Int) {
    var best = (value: -1.0, lag: 0)
    for lag in lags {
        var sab = 0.0, saa = 0.0, sbb = 0.0
        let start = max(0, -lag), end = min(a.count, b.count - lag)
        guard start < end else { continue }
        for i in start..<end {
            let x = Double(a[i]), y = Double(b[i + lag])
            sab += x * y; saa += x * x; sbb += y * y
        }
        guard saa > 0, sbb > 0 else { continue }
        let r = sab / (saa.squareRoot() * sbb.squareRoot())
        if r > best.value { best = (r, lag) }
    }
    return best
}
