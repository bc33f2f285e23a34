import Synchronization

/// The edge between two stages: bounded, with a declared policy for when it is full, and a
/// control lane that overtakes queued data.
///
/// - `suspendProducer`: `send` waits while the queue is full. For sources faster than real time
///   (TTS, model audio deltas): the wait *is* the backpressure that keeps memory flat.
/// - `dropOldest`: `send` never waits; a full queue drops its oldest element and counts it. For
///   live network input, whose reader must never block.
///
/// One consumer; any number of producers. Waits end when the waiting task is cancelled.
///
/// The hot entry points are pre-specialised for the media path's element, `PacedEntry<[UInt8]>`
/// (every call's outbound audio, 50 times a second): called from other modules, the generic
/// versions looked up type metadata on every call — 4 % of a 1000-stream server's CPU.
public final class BoundedQueue<Element: Sendable>: Sendable {
    public enum OverflowPolicy: Sendable, Equatable {
        case suspendProducer
        case dropOldest
    }

    public struct Counters: Sendable, Equatable {
        public var enqueued = 0
        public var dequeued = 0
        public var dropped = 0
        /// Data elements discarded by a flushing control event (barge-in), not by overflow.
        public var flushed = 0
        public var highWater = 0
    }

    private struct State {
        var data: RingBuffer<Element>
        var control: [ControlEvent] = []
        /// Elements that overtake data (a barge-in signal among audio), at most `capacity`.
        var urgent: [Element] = []
        var consumer: CheckedContinuation<StageMessage<Element>?, Never>?
        var producers: [(id: Int, continuation: CheckedContinuation<Bool, Never>)] = []
        var nextProducerID = 0
        var finished = false
        var counters = Counters()
    }

    public let capacity: Int
    public let policy: OverflowPolicy
    /// A waiting producer is resumed once the queue has drained to this many elements (the low
    /// watermark). The default, `capacity - 1`, resumes it as soon as there is room; lower values
    /// let it refill several elements per wake-up instead of one — for a producer that is always
    /// ahead, like agent audio waiting for the pacer, that is one task switch per few frames
    /// instead of one per frame.
    public let resumeProducersAt: Int
    private let state: Mutex<State>

    public init(capacity: Int, policy: OverflowPolicy, resumeProducersAt: Int? = nil) {
        self.capacity = capacity
        self.policy = policy
        self.resumeProducersAt = min(max(0, resumeProducersAt ?? capacity - 1), capacity - 1)
        self.state = Mutex(State(data: RingBuffer(capacity: capacity)))
    }

    public var counters: Counters { state.withLock { $0.counters } }
    public var count: Int { state.withLock { $0.data.count } }

    /// Finished, and everything sent has been taken.
    public var isDrained: Bool { state.withLock { $0.finished && $0.data.isEmpty && $0.control.isEmpty && $0.urgent.isEmpty } }

    /// Sends an element ahead of all queued data (after control events); never waits. Beyond
    /// `capacity` urgent elements the oldest is dropped and counted.
    public func sendUrgent(_ element: Element) {
        let consumer = state.withLock { s -> CheckedContinuation<StageMessage<Element>?, Never>? in
            guard !s.finished else { return nil }
            s.counters.enqueued += 1
            if let consumer = s.consumer {
                s.consumer = nil
                s.counters.dequeued += 1
                return consumer
            }
            if s.urgent.count >= capacity { s.urgent.removeFirst(); s.counters.dropped += 1 }
            s.urgent.append(element)
            return nil
        }
        consumer?.resume(returning: .data(element))
    }

    // MARK: Producers

    /// Sends one element under the queue's policy. Returns false when the element was not queued:
    /// the queue is finished, the waiting producer was cancelled, or a flush (interrupt, clear)
    /// came while it waited — the element counts as flushed with the rest.
    @discardableResult
    @_specialize(exported: true, where Element == PacedEntry<[UInt8]>)
    public func send(_ element: Element) async -> Bool {
        while true {
            switch tryEnqueue(element) {
            case .queued: return true
            case .closed: return false
            case .full: break
            }
            // suspendProducer and full: wait for space, then try again.
            let id = state.withLock { s -> Int in s.nextProducerID += 1; return s.nextProducerID }
            let retry = await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                    let resumeNow = state.withLock { s -> Bool? in
                        if s.finished || Task.isCancelled { return false }
                        if !s.data.isFull { return true }
                        s.producers.append((id, continuation))
                        return nil
                    }
                    if let resumeNow { continuation.resume(returning: resumeNow) }
                }
            } onCancel: {
                let waiting = state.withLock { s -> CheckedContinuation<Bool, Never>? in
                    guard let index = s.producers.firstIndex(where: { $0.id == id }) else { return nil }
                    return s.producers.remove(at: index).continuation
                }
                waiting?.resume(returning: false)
            }
            if !retry || Task.isCancelled { return false }
        }
    }

    /// Queues without waiting, for callers that must not suspend (a socket or tick callback).
    /// Under `suspendProducer` a full queue refuses (false); under `dropOldest` it makes room.
    @discardableResult
    @_specialize(exported: true, where Element == PacedEntry<[UInt8]>)
    public func trySend(_ element: Element) -> Bool {
        tryEnqueue(element) == .queued
    }

    enum EnqueueResult { case queued, full, closed }

    /// Never waits: under `dropOldest` makes room by dropping; under `suspendProducer` reports `.full`.
    @discardableResult
    func tryEnqueue(_ element: Element) -> EnqueueResult {
        let (result, consumer) = state.withLock { s -> (EnqueueResult, CheckedContinuation<StageMessage<Element>?, Never>?) in
            if s.finished { return (.closed, nil) }
            // A waiting consumer takes the element directly.
            if let consumer = s.consumer {
                s.consumer = nil
                s.counters.enqueued += 1
                s.counters.dequeued += 1
                s.counters.highWater = max(s.counters.highWater, 1)
                return (.queued, consumer)
            }
            if s.data.isFull {
                guard policy == .dropOldest else { return (.full, nil) }
                _ = s.data.popFirst()
                s.counters.dropped += 1
            }
            s.data.append(element)
            s.counters.enqueued += 1
            s.counters.highWater = max(s.counters.highWater, s.data.count)
            return (.queued, nil)
        }
        consumer?.resume(returning: .data(element))
        return result
    }

    /// Sends a control event ahead of all queued data; never waits. Interrupt and flush also
    /// drop the queued data, so nothing stale is played after them.
    @_specialize(exported: true, where Element == PacedEntry<[UInt8]>)
    public func sendControl(_ event: ControlEvent) {
        let (consumer, producers) = state.withLock { s -> (CheckedContinuation<StageMessage<Element>?, Never>?, [CheckedContinuation<Bool, Never>]) in
            if event.dropsQueuedData {
                // Elements still held by waiting producers are flushed too: they return false.
                s.counters.flushed += s.data.removeAll() + s.producers.count
            }
            let waiting = event.dropsQueuedData ? s.producers.map(\.continuation) : []
            if event.dropsQueuedData { s.producers.removeAll() }
            if let consumer = s.consumer {
                s.consumer = nil
                return (consumer, waiting)
            }
            s.control.append(event)
            return (nil, waiting)
        }
        consumer?.resume(returning: .control(event))
        for producer in producers { producer.resume(returning: false) }
    }

    /// No more elements will be sent; the consumer drains what is queued, then gets nil.
    public func finish() {
        let (consumer, producers) = state.withLock { s in
            s.finished = true
            let consumer = s.data.isEmpty && s.control.isEmpty && s.urgent.isEmpty ? s.consumer : nil
            if consumer != nil { s.consumer = nil }
            defer { s.producers.removeAll() }
            return (consumer, s.producers.map(\.continuation))
        }
        consumer?.resume(returning: nil)
        for producer in producers { producer.resume(returning: false) }
    }

    // MARK: Consumer

    /// The next message, control first; waits while empty. Nil when finished and drained, or
    /// when the consuming task is cancelled.
    public func next() async -> StageMessage<Element>? {
        if let message = poll() { return message }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<StageMessage<Element>?, Never>) in
                let (immediate, ready) = state.withLock { s -> (StageMessage<Element>??, CheckedContinuation<Bool, Never>?) in
                    if let message = takeLocked(&s) {
                        return (.some(message), s.producers.isEmpty || s.data.count > resumeProducersAt ? nil : s.producers.removeFirst().continuation)
                    }
                    if s.finished || Task.isCancelled { return (.some(nil), nil) }
                    s.consumer = continuation
                    return (nil, nil)
                }
                ready?.resume(returning: true)
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            let consumer = state.withLock { s -> CheckedContinuation<StageMessage<Element>?, Never>? in
                defer { s.consumer = nil }
                return s.consumer
            }
            consumer?.resume(returning: nil)
        }
    }

    /// The next message if one is queued, control first; never waits.
    @_specialize(exported: true, where Element == PacedEntry<[UInt8]>)
    public func poll() -> StageMessage<Element>? {
        let (message, ready) = state.withLock { s -> (StageMessage<Element>?, CheckedContinuation<Bool, Never>?) in
            let message = takeLocked(&s)
            guard message != nil, !s.producers.isEmpty, s.data.count <= resumeProducersAt else { return (message, nil) }
            return (message, s.producers.removeFirst().continuation)
        }
        ready?.resume(returning: true)
        return message
    }

    private func takeLocked(_ s: inout State) -> StageMessage<Element>? {
        if !s.control.isEmpty { return .control(s.control.removeFirst()) }
        if !s.urgent.isEmpty {
            s.counters.dequeued += 1
            return .data(s.urgent.removeFirst())
        }
        guard let element = s.data.popFirst() else { return nil }
        s.counters.dequeued += 1
        return .data(element)
    }
}

extension BoundedQueue {
    /// Its counters as a pipeline meter shows a queue.
    public var meterCounters: BoundedQueueCounters {
        let c = counters
        return (c.enqueued, c.dequeued, c.dropped, c.highWater)
    }
}
