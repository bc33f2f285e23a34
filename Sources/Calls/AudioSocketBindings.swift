import Bridge
import Foundation
import Synchronization

/// Calls the dialplan announced through the API before connecting over AudioSocket
/// (`POST /api/audiosocket/calls`): the UUID handed back names the call's numbers, which
/// AudioSocket cannot carry. A binding is taken by the first connection that names its UUID, or
/// forgotten after `lifetime` (the dialplan connects right after asking). Kept in this server's
/// memory: the dialplan connects to the server it asked. At most `capacity` wait at once.
public final class AudioSocketBindings: Sendable {
    public struct Binding: Sendable, Equatable {
        public var caller: String
        public var callee: String

        public init(caller: String, callee: String) {
            self.caller = caller
            self.callee = callee
        }
    }

    public struct Full: Error, CustomStringConvertible {
        public let capacity: Int
        public var description: String { "\(capacity) AudioSocket calls are already waiting for their connection" }
    }

    private struct Entry {
        var binding: Binding
        var expires: ContinuousClock.Instant
    }

    private let clock: CallClock
    public let lifetime: Duration
    public let capacity: Int
    private let entries = Mutex<[UUID: Entry]>([:])

    public init(clock: CallClock, lifetime: Duration = .seconds(30), capacity: Int = 1_000) {
        self.clock = clock
        self.lifetime = lifetime
        self.capacity = capacity
    }

    /// A new UUID for a call from `caller` to `callee`, for the dialplan's `AudioSocket(uuid,…)`.
    public func bind(caller: String, callee: String) throws(Full) -> UUID {
        let now = clock.now
        let uuid = UUID()
        let added = entries.withLock { e -> Bool in
            e = e.filter { $0.value.expires > now }
            guard e.count < capacity else { return false }
            e[uuid] = Entry(binding: Binding(caller: caller, callee: callee), expires: now.advanced(by: lifetime))
            return true
        }
        guard added else { throw Full(capacity: capacity) }
        return uuid
    }

    /// The binding of `uuid`, once: a second connection with the same UUID finds none.
    public func take(_ uuid: UUID) -> Binding? {
        let now = clock.now
        return entries.withLock { e in
            guard let entry = e.removeValue(forKey: uuid), entry.expires > now else { return nil }
            return entry.binding
        }
    }

    /// Bindings still waiting (expired ones are not counted).
    public var waiting: Int {
        let now = clock.now
        return entries.withLock { $0.values.filter { $0.expires > now }.count }
    }
}
