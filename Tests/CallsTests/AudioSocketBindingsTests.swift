import Bridge
import Calls
import Foundation
import Testing

/// The UUIDs a dialplan announced for AudioSocket calls: each taken once, none after its lifetime,
/// and no more waiting at once than the capacity.
@Suite struct AudioSocketBindingsTests {
    @Test func aBindingIsTakenOnceWithItsNumbers() throws {
        let bindings = AudioSocketBindings(clock: .continuous, lifetime: .seconds(3600))
        let uuid = try bindings.bind(caller: "+15550001111", callee: "+15550002222")
        #expect(bindings.waiting == 1)
        #expect(bindings.take(uuid) == .init(caller: "+15550001111", callee: "+15550002222"))
        #expect(bindings.take(uuid) == nil, "a second connection with the same UUID finds nothing")
        #expect(bindings.take(UUID()) == nil)
    }

    @Test func aBindingPastItsLifetimeIsGone() throws {
        let bindings = AudioSocketBindings(clock: .continuous, lifetime: .zero)
        let uuid = try bindings.bind(caller: "unknown", callee: "")
        #expect(bindings.take(uuid) == nil && bindings.waiting == 0)
    }

    @Test func noMoreThanTheCapacityWaitAndExpiredOnesMakeRoom() throws {
        let full = AudioSocketBindings(clock: .continuous, lifetime: .seconds(3600), capacity: 2)
        _ = try full.bind(caller: "a", callee: "")
        _ = try full.bind(caller: "b", callee: "")
        #expect(throws: AudioSocketBindings.Full.self) { try full.bind(caller: "c", callee: "") }
        let expiring = AudioSocketBindings(clock: .continuous, lifetime: .zero, capacity: 2)
        for _ in 0..<5 { _ = try expiring.bind(caller: "a", callee: "") }   // each one gone by the next
    }
}
