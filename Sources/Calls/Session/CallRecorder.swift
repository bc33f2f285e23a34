import Foundation
import Synchronization

/// Writes a call as a stereo 8 kHz 16-bit WAV while it runs: left the caller, right the agent.
///
/// Caller audio arrives in real time; agent audio as it is sent (a little ahead of playout).
/// Samples are interleaved as both sides have them, the agent padded with silence when it is
/// quiet, and written in one-second blocks (one write a second per call, not one per frame), so
/// memory stays flat however long the call is. The RIFF sizes are patched in on `close()`.
public final class CallRecorder: Sendable {
    public let path: String
    private let state: Mutex<State>

    private struct State {
        var handle: FileHandle?
        var caller: [Int16] = []
        var agent: [Int16] = []
        var frames = 0
    }

    /// Agent silence is padded in once the caller side is this far ahead (200 ms).
    static let agentLagSamples = 1600
    /// Frames buffered before a write: 1 s (32 KB).
    static let blockFrames = 8000

    public init(path: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        guard FileManager.default.createFile(atPath: path, contents: Self.header(dataBytes: 0)) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        self.path = path
        self.state = Mutex(State(handle: handle))
    }

    public func caller(_ samples: [Int16]) {
        state.withLock { s in
            s.caller += samples
            if s.caller.count - s.agent.count > Self.agentLagSamples {
                s.agent.append(contentsOf: repeatElement(0, count: s.caller.count - s.agent.count - Self.agentLagSamples))
            }
            flush(&s)
        }
    }

    public func agent(_ samples: [Int16]) {
        state.withLock { s in
            s.agent += samples
            flush(&s)
        }
    }

    /// Frames written so far (one frame = one caller and one agent sample).
    public var frames: Int { state.withLock { $0.frames } }
    public var durationSeconds: Double { Double(frames) / 8000 }

    private func flush(_ s: inout State) {
        let n = min(s.caller.count, s.agent.count)
        guard n >= Self.blockFrames else { return }
        write(n, &s)
    }

    /// Writes the first `n` frames: caller and agent sample interleaved, 16-bit little-endian.
    private func write(_ n: Int, _ s: inout State) {
        guard n > 0 else { return }
        let bytes = [UInt8](unsafeUninitializedCapacity: n * 4) { out, count in
            s.caller.withUnsafeBufferPointer { caller in
                s.agent.withUnsafeBufferPointer { agent in
                    for i in 0..<n {
                        let l = UInt16(bitPattern: caller[i]), r = UInt16(bitPattern: agent[i])
                        out[4 * i] = UInt8(truncatingIfNeeded: l)
                        out[4 * i + 1] = UInt8(truncatingIfNeeded: l >> 8)
                        out[4 * i + 2] = UInt8(truncatingIfNeeded: r)
                        out[4 * i + 3] = UInt8(truncatingIfNeeded: r >> 8)
                    }
                }
            }
            count = n * 4
        }
        s.caller.removeFirst(n)
        s.agent.removeFirst(n)
        s.handle?.write(Data(bytes))
        s.frames += n
    }

    /// Writes what is left (the shorter side padded) and the final sizes. Returns the file size.
    @discardableResult
    public func close() -> Int {
        state.withLock { s in
            guard let handle = s.handle else { return 0 }
            let longest = max(s.caller.count, s.agent.count)
            s.caller += [Int16](repeating: 0, count: longest - s.caller.count)
            s.agent += [Int16](repeating: 0, count: longest - s.agent.count)
            write(longest, &s)
            try? handle.seek(toOffset: 0)
            handle.write(Self.header(dataBytes: s.frames * 4))
            try? handle.close()
            s.handle = nil
            return 44 + s.frames * 4
        }
    }

    static func header(dataBytes: Int) -> Data {
        var h = [UInt8]()
        func u32(_ v: Int) { h += [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8((v >> 16) & 0xFF), UInt8((v >> 24) & 0xFF)] }
        func u16(_ v: Int) { h += [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF)] }
        h += Array("RIFF".utf8); u32(36 + dataBytes); h += Array("WAVE".utf8)
        h += Array("fmt ".utf8); u32(16); u16(1); u16(2); u32(8000); u32(8000 * 4); u16(4); u16(16)
        h += Array("data".utf8); u32(dataBytes)
        return Data(h)
    }
}
