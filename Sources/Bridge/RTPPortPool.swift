import Synchronization

/// Hands out RTP ports from the configured range and takes them back when a call ends.
///
/// RTP takes the even port and RTCP the odd one above it (RFC 3550 §11), so the pool deals in even
/// ports only. A port that was just released goes to the back of the line: a late packet from the
/// previous call must not land in the next call's session. The line starts at a random pair of the
/// range, so two servers on one host (a blue/green deploy) do not both begin at its bottom and
/// trip over each other's first ports.
public final class RTPPortPool: Sendable {
    public enum Failure: Error, Equatable, CustomStringConvertible {
        case exhausted(range: ClosedRange<Int>)
        case invalidRange(ClosedRange<Int>)

        public var description: String {
            switch self {
            case .exhausted(let range): "no free RTP port in \(range.lowerBound)-\(range.upperBound)"
            case .invalidRange(let range): "RTP port range \(range.lowerBound)-\(range.upperBound) holds no even port pair"
            }
        }
    }

    private struct State {
        var free: [Int]
        var head = 0
        var inUse: Set<Int> = []
    }

    public let range: ClosedRange<Int>
    private let state: Mutex<State>

    /// `startIndex`: which pair the line starts at (0: the lowest); nil, a random one.
    public init(range: ClosedRange<Int>, startIndex: Int? = nil) throws {
        let firstEven = range.lowerBound + (range.lowerBound & 1)
        let ports = Array(stride(from: firstEven, through: range.upperBound - 1, by: 2))
        guard !ports.isEmpty, range.lowerBound > 0, range.upperBound <= 65535 else {
            throw Failure.invalidRange(range)
        }
        let start = (startIndex ?? Int.random(in: 0..<ports.count)) % ports.count
        self.range = range
        self.state = Mutex(State(free: Array(ports[start...] + ports[..<start])))
    }

    public var capacity: Int { state.withLock { $0.free.count - $0.head + $0.inUse.count } }
    public var inUseCount: Int { state.withLock { $0.inUse.count } }
    /// Pairs free now.
    public var freeCount: Int { state.withLock { $0.free.count - $0.head } }

    /// Takes the least recently used free even port.
    public func acquire() throws -> Int {
        try state.withLock { s in
            guard s.head < s.free.count else { throw Failure.exhausted(range: range) }
            let port = s.free[s.head]
            s.head += 1
            // Compact now and then so the queue does not grow without bound.
            if s.head > 64, s.head * 2 > s.free.count {
                s.free.removeFirst(s.head)
                s.head = 0
            }
            s.inUse.insert(port)
            return port
        }
    }

    /// Returns a port to the pool. Releasing a port that is not in use does nothing.
    public func release(_ port: Int) {
        state.withLock { s in
            guard s.inUse.remove(port) != nil else { return }
            s.free.append(port)
        }
    }
}
