import Foundation
import Pipeline
import Synchronization

/// Writes a call as a stereo 8 kHz 16-bit WAV while it runs: left the caller, right the agent.
///
/// Time is the wall clock since the recorder started, so the file lines up with the call (and
/// its transcript) even when a side sends nothing: a peer with silence suppression stops sending
/// RTP while it is quiet, and counting its frames would squeeze those pauses out. Caller audio is
/// placed where it arrives (a packet up to 120 ms late still joins the one before it); agent audio
/// as it is sent, right after what is already queued for playout or, after a pause, now.
/// Samples are interleaved as both sides have them, the agent padded with silence when it is
/// quiet (it trails the caller by at most 200 ms), in one-second blocks, so memory stays flat
/// however long the call is. The blocks are written by `run()`, a task of the call's own, never
/// by the caller of `caller(_:)` — that is the socket's event loop, which must not wait for a
/// disk. At most `maximumPendingBlocks` wait for it; a disk slower than that loses whole seconds
/// of recording (counted and logged), never the call's audio. `close()` writes what is left and
/// patches in the RIFF sizes. With a storage cipher the file is a `SealedRecording`: each block
/// is sealed as it is written, and the header, sizes filled in, is the last segment.
public final class CallRecorder: Sendable {
    public let path: String
    private let cipher: StorageCipher?
    /// Segments written to a sealed file (the index each one authenticates); only under `file`'s lock.
    private let segments = Atomic<Int>(0)
    private let state: Mutex<State>
    /// The file; also held while writing, so blocks land in order whoever writes them.
    private let file: Mutex<FileHandle?>
    private let writtenFrames = Atomic<Int>(0)
    private let blockReady: AsyncStream<Void>
    private let ringBlockReady: AsyncStream<Void>.Continuation
    /// Frames (8 kHz) since the recorder started: the wall clock, or a test's own.
    private let frameClock: @Sendable () -> Int
    /// Live listeners (`listen()`), each given every block as it is written.
    private let listeners = Mutex<(next: Int, open: [Int: AsyncStream<[UInt8]>.Continuation])>((0, [:]))

    /// Samples go straight to their place in zero-filled interleaved blocks (no per-side arrays
    /// to append to and shift): a side that is quiet is silence without writing anything.
    private struct State {
        /// Blocks being filled; the first starts at frame `base`.
        var filling: [[UInt8]] = []
        var base = 0
        /// How far each side has come, in frames from the start of the call.
        var callerFrames = 0
        var agentFrames = 0
        /// Complete blocks waiting for `run()`.
        var ready: [[UInt8]] = []
        var droppedBlocks = 0
    }

    /// Agent silence is padded in once the caller side is this far ahead (200 ms).
    static let agentLagSamples = 1600
    /// Caller audio later than this (120 ms) is placed at its arrival time, leaving a gap.
    static let jitterFrames = 960
    /// Frames per block: 1 s (32 KB).
    static let blockFrames = 8000
    /// Blocks waiting to be written before the oldest is dropped: 8 s.
    static let maximumPendingBlocks = 8

    /// `frameClock` says how many 8 kHz frames have passed since the start (the wall clock by default).
    public init(path: String, cipher: StorageCipher? = nil, frameClock: (@Sendable () -> Int)? = nil) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let start = cipher.map { SealedRecording.fileHeader(keyID: $0.currentKeyID) } ?? Self.header(dataBytes: 0)
        guard FileManager.default.createFile(atPath: path, contents: start) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        self.path = path
        self.cipher = cipher
        let started = ContinuousClock.now
        self.frameClock = frameClock ?? { started.duration(to: .now).totalNanoseconds / 125_000 }   // 8 kHz: a frame is 125 µs
        self.state = Mutex(State())
        self.file = Mutex(handle)
        (blockReady, ringBlockReady) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// `waited`: how long the frame waited between the leg and here (behind a caller side busy
    /// with a transcription, say) — it arrived that much earlier than now.
    public func caller(_ samples: [Int16], waited: Duration = .zero) {
        let now = nowFrame
        let ready = state.withLock { s in
            // Contiguous unless it arrived after a pause (more than the jitter allowance late):
            // then where it arrived. Audio read faster than real time (a backlog) stays contiguous,
            // nothing overwritten; a backlog's first frame counts from when the leg took it in, or a
            // busy caller side would push the rest of the call's caller audio later each time.
            let arrival = now - samples.count - Int(waited.totalNanoseconds / 125_000)
            let at = s.callerFrames < arrival - Self.jitterFrames ? arrival : s.callerFrames
            Self.place(samples, channel: 0, at: at, &s)
            s.callerFrames = at + samples.count
            s.agentFrames = max(s.agentFrames, min(s.callerFrames, now) - Self.agentLagSamples)
            return Self.cutBlocks(&s)
        }
        if ready { ringBlockReady.yield() }
    }

    public func agent(_ samples: [Int16]) {
        let now = nowFrame
        let ready = state.withLock { s in
            let at = max(s.agentFrames, now)
            Self.place(samples, channel: 1, at: at, &s)
            s.agentFrames = at + samples.count
            return Self.cutBlocks(&s)
        }
        if ready { ringBlockReady.yield() }
    }

    private var nowFrame: Int { frameClock() }

    /// Writes blocks as they are cut, until `close()` (or cancellation: `close()` writes the rest).
    public func run() async {
        for await _ in blockReady { writeReady() }
    }

    /// Frames written so far (one frame = one caller and one agent sample).
    public var frames: Int { writtenFrames.load(ordering: .relaxed) }
    public var durationSeconds: Double { Double(frames) / 8000 }
    /// Seconds of recording lost to a disk that could not keep up.
    public var droppedSeconds: Int { state.withLock { $0.droppedBlocks } }

    /// Writes `samples` as 16-bit little-endian into `channel` (0 left, 1 right) from `frame` on.
    private static func place(_ samples: [Int16], channel: Int, at frame: Int, _ s: inout State) {
        var done = 0
        while done < samples.count {
            let position = frame + done - s.base
            let (index, offset) = position.quotientAndRemainder(dividingBy: blockFrames)
            while s.filling.count <= index { s.filling.append([UInt8](repeating: 0, count: blockFrames * 4)) }
            let n = min(samples.count - done, blockFrames - offset)
            s.filling[index].withUnsafeMutableBufferPointer { block in
                samples.withUnsafeBufferPointer { source in
                    var out = 4 * offset + 2 * channel
                    for k in done..<done + n {
                        let v = UInt16(bitPattern: source[k])
                        block[out] = UInt8(truncatingIfNeeded: v)
                        block[out + 1] = UInt8(truncatingIfNeeded: v >> 8)
                        out += 4
                    }
                }
            }
            done += n
        }
    }

    /// Moves the blocks both sides have passed to `ready`; true when one is waiting for `run()`.
    private static func cutBlocks(_ s: inout State) -> Bool {
        var cut = false
        while !s.filling.isEmpty, min(s.callerFrames, s.agentFrames) >= s.base + blockFrames {
            if s.ready.count >= maximumPendingBlocks {
                s.ready.removeFirst()
                s.droppedBlocks += 1
            }
            s.ready.append(s.filling.removeFirst())
            s.base += blockFrames
            cut = true
        }
        return cut
    }

    private func writeReady() {
        let blocks = file.withLock { handle in
            let blocks = state.withLock { s in defer { s.ready = [] }; return s.ready }
            for block in blocks { write(block[...], to: handle) }
            return blocks
        }
        let open = listeners.withLock { Array($0.open.values) }
        for listener in open { for block in blocks { listener.yield(block) } }
    }

    /// The recording as it is written, for a supervisor listening live: 1 s blocks of the file's
    /// stereo (left the caller, right the agent, 16-bit little-endian, 8 kHz), about a second
    /// behind the call. A listener more than 3 s behind loses the oldest; the stream ends with
    /// the call. The file is the same whoever listens.
    public func listen() -> AsyncStream<[UInt8]> {
        let (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self, bufferingPolicy: .bufferingNewest(3))
        let id = file.withLock { handle -> Int? in
            guard handle != nil else { return nil }   // closed: the call is over
            return listeners.withLock { l in
                defer { l.next += 1 }
                l.open[l.next] = continuation
                return l.next
            }
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in _ = self?.listeners.withLock { $0.open.removeValue(forKey: id) } }
        return stream
    }

    /// One side of a stereo block, or both mixed, as mono 16-bit little-endian samples.
    public static func mono(_ block: [UInt8], side: ListenSide) -> [UInt8] {
        let stereo = PCM16.samples(block)
        return PCM16.bytes(stride(from: 0, to: stereo.count - 1, by: 2).map { i in
            switch side {
            case .caller: stereo[i]
            case .agent: stereo[i + 1]
            case .mixed: Int16(clamping: Int(stereo[i]) + Int(stereo[i + 1]))
            }
        })
    }

    private func write(_ bytes: ArraySlice<UInt8>, to handle: FileHandle?) {
        guard let handle else { return }
        if let cipher {
            let index = segments.load(ordering: .relaxed)
            guard (try? handle.write(contentsOf: SealedRecording.segment(bytes, index: index, final: false, cipher: cipher))) != nil else { return }
            segments.store(index + 1, ordering: .relaxed)
        } else {
            guard (try? handle.write(contentsOf: bytes)) != nil else { return }
        }
        writtenFrames.add(bytes.count / 4, ordering: .relaxed)
    }

    /// Writes what is waiting and what is left (up to the longer side), then the final sizes.
    /// Returns the file size.
    @discardableResult
    public func close() -> Int {
        ringBlockReady.finish()
        return file.withLock { handle in
            guard let open = handle else { return 0 }
            let (ready, filling, left) = state.withLock { s in
                defer { s.ready = []; s.filling = [] }
                return (s.ready, s.filling, max(s.callerFrames, s.agentFrames) - s.base)
            }
            for block in ready { write(block[...], to: open) }
            var remaining = left
            for block in filling where remaining > 0 {
                let n = min(remaining, Self.blockFrames)
                write(block[..<(n * 4)], to: open)
                remaining -= n
            }
            let frames = writtenFrames.load(ordering: .relaxed)
            if let cipher {
                let index = segments.load(ordering: .relaxed)
                try? open.write(contentsOf: SealedRecording.segment(Self.header(dataBytes: frames * 4), index: index, final: true, cipher: cipher))
            } else {
                try? open.seek(toOffset: 0)
                try? open.write(contentsOf: Self.header(dataBytes: frames * 4))
            }
            try? open.close()
            handle = nil
            for listener in listeners.withLock({ l in defer { l.open = [:] }; return Array(l.open.values) }) { listener.finish() }
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
