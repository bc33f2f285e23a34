import Synchronization

/// The agent's audio as its leg sent it, one entry a pacer tick (silence where nothing was sent):
/// the far end an `EchoCanceller` holds the line's audio against. The pacer writes it, the caller
/// side reads one frame for each frame it hears; between the two only a few frames may wait
/// (`depth`), so a reader that stalls picks up close to now rather than drifting behind.
public final class EchoReference: Sendable {
    public static let depth = 4
    private static let silence = [Int16](repeating: 0, count: 160)
    private let frames = Mutex<[[Int16]]>([])

    public init() {}

    /// What the pacer sent on a tick (μ-law; nil: nothing).
    public func sent(_ muLaw: [UInt8]?) {
        let samples = muLaw.map { G711.decode($0, law: .muLaw) } ?? Self.silence
        frames.withLock { f in
            f.append(samples)
            if f.count > Self.depth { f.removeFirst(f.count - Self.depth) }
        }
    }

    /// The oldest frame sent and not yet taken; silence when none waits.
    public func next() -> [Int16] {
        frames.withLock { $0.isEmpty ? nil : $0.removeFirst() } ?? Self.silence
    }
}
