/// A fixed-capacity FIFO over one preallocated array: no allocation per push or pop.
struct RingBuffer<Element> {
    private var storage: [Element?]
    private var head = 0
    private(set) var count = 0

    init(capacity: Int) {
        precondition(capacity > 0)
        storage = Array(repeating: nil, count: capacity)
    }

    var capacity: Int { storage.count }
    var isEmpty: Bool { count == 0 }
    var isFull: Bool { count == storage.count }

    /// Appends; the caller checks `isFull` first.
    mutating func append(_ element: Element) {
        precondition(!isFull, "RingBuffer overflow")
        storage[(head + count) % storage.count] = element
        count += 1
    }

    mutating func popFirst() -> Element? {
        guard count > 0 else { return nil }
        let element = storage[head]
        storage[head] = nil
        head = (head + 1) % storage.count
        count -= 1
        return element
    }

    var first: Element? { count > 0 ? storage[head] : nil }

    mutating func removeAll() -> Int {
        let removed = count
        while popFirst() != nil {}
        head = 0
        return removed
    }
}
