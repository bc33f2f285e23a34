import Foundation
import Synchronization

/// Writes a call as a stereo 8 kHz 16-bit WAV while it runs: left the caller, right the agent.
///
/// Caller audio arrives in real time; agent audio as it is sent (a little ahead of playout).
/// Samples are interleaved as both sides have them, the agent padded with silence when it is
/// quiet, in one-second blocks, so memory stays flat however long the call is. The blocks are
/// written by `run()`, a task of the call's own, never by the caller of `caller(_:)` — that is
/// the socket's event loop, which must not wait for a disk. At most `maximumPendingBlocks` wait
/// for it; a disk slower than that loses whole seconds of recording (counted and logged), never
/// the call's audio. `close()` writes what is left and patches in the RIFF sizes.
public final class CallRecorder: Sendable {
    public let path: String
    private let state: Mutex<State>
    /// The file; also held while writing, so blocks land in order whoever writes them.
    private let file: Mutex<FileHandle?>
    private let writtenFrames = Atomic<Int>(0)
    private let blockReady: AsyncStream<Void>
    private let ringBlockReady: AsyncStream<Void>.Continuation

    private struct State {
        var caller: [Int16] = []
        var agent: [Int16] = []
        /// Interleaved blocks waiting for `run()`.
        var blocks: [Data] = []
        var droppedBlocks = 0
    }

    /// Agent silence is padded in once the caller side is this far ahead (200 ms).
    static let agentLagSamples = 1600
    /// Frames per block: 1 s (32 KB).
    static let blockFrames = 8000
    /// Blocks waiting to be written before the oldest is dropped: 8 s.
    static let maximumPendingBlocks = 8

    public init(path: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        guard FileManager.default.createFile(atPath: path, contents: Self.header(dataBytes: 0)) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        self.path = path
        self.state = Mutex(State())
        self.file = Mutex(handle)
        (blockReady, ringBlockReady) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    public func caller(_ samples: [Int16]) {
        let ready = state.withLock { s in
            s.caller += samples
            if s.caller.count - s.agent.count > Self.agentLagSamples {
                s.agent.append(contentsOf: repeatElement(0, count: s.caller.count - s.agent.count - Self.agentLagSamples))
            }
            return cutBlock(&s)
        }
        if ready { ringBlockReady.yield() }
    }

    public func agent(_ samples: [Int16]) {
        let ready = state.withLock { s in
            s.agent += samples
            return cutBlock(&s)
        }
        if ready { ringBlockReady.yield() }
    }

    /// Writes blocks as they are cut, until `close()` (or cancellation: `close()` writes the rest).
    public func run() async {
        for await _ in blockReady { writePending() }
    }

    /// Frames written so far (one frame = one caller and one agent sample).
    public var frames: Int { writtenFrames.load(ordering: .relaxed) }
    public var durationSeconds: Double { Double(frames) / 8000 }
    /// Seconds of recording lost to a disk that could not keep up.
    public var droppedSeconds: Int { state.withLock { $0.droppedBlocks } }

    /// Cuts a block once both sides have one; true when one is waiting for `run()`.
    private func cutBlock(_ s: inout State) -> Bool {
        guard min(s.caller.count, s.agent.count) >= Self.blockFrames else { return false }
        if s.blocks.count >= Self.maximumPendingBlocks {
            s.blocks.removeFirst()
            s.droppedBlocks += 1
        }
        s.blocks.append(Self.interleave(Self.blockFrames, &s))
        return true
    }

    private func writePending() {
        file.withLock { handle in
            let blocks = state.withLock { s in defer { s.blocks = [] }; return s.blocks }
            for block in blocks { write(block, to: handle) }
        }
    }

    private func write(_ block: Data, to handle: FileHandle?) {
        handle?.write(block)
        writtenFrames.add(block.count / 4, ordering: .relaxed)
    }

    /// The first `n` frames, caller and agent sample interleaved, 16-bit little-endian.
    private static func interleave(_ n: Int, _ s: inout State) -> Data {
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
        return Data(bytes)
    }

    /// Writes what is waiting and what is left (the shorter side padded), then the final sizes.
    /// Returns the file size.
    @discardableResult
    public func close() -> Int {
        ringBlockReady.finish()
        return file.withLock { handle in
            guard let open = handle else { return 0 }
            let (blocks, tail) = state.withLock { s -> ([Data], Data) in
                let longest = max(s.caller.count, s.agent.count)
                s.caller += [Int16](repeating: 0, count: longest - s.caller.count)
                s.agent += [Int16](repeating: 0, count: longest - s.agent.count)
                defer { s.blocks = [] }
                return (s.blocks, Self.interleave(longest, &s))
            }
            for block in blocks + [tail] { write(block, to: open) }
            let frames = writtenFrames.load(ordering: .relaxed)
            try? open.seek(toOffset: 0)
            open.write(Self.header(dataBytes: frames * 4))
            try? open.close()
            handle = nil
            return 44 + frames * 4
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
