import Pipeline
import Synchronization

/// Texts said before, with their audio, shared by every call of a voice: an agent says its
/// greeting, its questions and "Thank you." call after call, and each is synthesized once. At most
/// `capacity` samples are kept, the least recently said dropped first, so a template's lines stay
/// while the one-off sentences around them (a caller's name read back) come and go.
///
/// A text already being synthesized is waited for, not synthesized again: a campaign starts its
/// calls together and they greet at the same moment — 20 calls at once made the same greeting 20
/// times. (Both voices say a text the same way every time: espeak-ng runs in a process of its own
/// each time, Piper's noise is fixed — docs/virtual-time.md.)
final class SpeechCache: Sendable {
    let capacity: Int
    private let state: Mutex<State>

    init(capacity: Int) {
        self.capacity = capacity
        state = Mutex(State())
    }

    /// What a caller of `speech(for:making:)` does next.
    private enum Claim {
        case said([Int16])
        /// Nobody has it or is making it: this caller makes it.
        case make
        /// Another caller's synthesis failed (it may have been cancelled with its call): try again.
        case again
    }

    private struct State {
        /// Keys from least to most recently said.
        var order: [String] = []
        var audio: [String: [Int16]] = [:]
        var samples = 0
        /// Texts being made, with the callers waiting for them.
        var making: [String: [CheckedContinuation<Claim, Never>]] = [:]

        mutating func recall(_ key: String) -> [Int16]? {
            guard let speech = audio[key] else { return nil }
            if order.last != key, let at = order.firstIndex(of: key) { order.append(order.remove(at: at)) }
            return speech
        }

        mutating func keep(_ speech: [Int16], for key: String, capacity: Int) {
            guard audio[key] == nil, speech.count <= capacity else { return }
            audio[key] = speech
            order.append(key)
            samples += speech.count
            while samples > capacity, !order.isEmpty {
                samples -= audio.removeValue(forKey: order.removeFirst())?.count ?? 0
            }
        }
    }

    /// The audio of `key`: kept, being made by another caller (waited for), or made now by `make`
    /// and kept. A failure of `make` is its caller's alone: the waiters try again, the first of
    /// them making it — the maker's call may have been cancelled, or met an error of its own, and
    /// a caller's voice is not lost to another call's trouble.
    ///
    /// In virtual time a call neither waits for another's synthesis nor is waited for: its own
    /// synthesis runs in place (`BlockingWorkPool`), and a wait on a call running on real threads,
    /// or on another clock, would make the same call run differently the second time.
    func speech(for key: String, making make: () async throws -> [Int16]) async throws -> [Int16] {
        if VirtualTimeExecutor.current != nil {
            if let speech = state.withLock({ $0.recall(key) }) { return speech }
            let speech = try await make()
            state.withLock { $0.keep(speech, for: key, capacity: capacity) }
            return speech
        }
        while true {
            let claim = await withCheckedContinuation { (waiter: CheckedContinuation<Claim, Never>) in
                let now = state.withLock { s -> Claim? in
                    if let speech = s.recall(key) { return .said(speech) }
                    if s.making[key] != nil {
                        s.making[key]!.append(waiter)
                        return nil
                    }
                    s.making[key] = []
                    return .make
                }
                if let now { waiter.resume(returning: now) }
            }
            switch claim {
            case .said(let speech): return speech
            case .again: continue
            case .make:
                let made: Result<[Int16], any Error>
                do { made = .success(try await make()) } catch { made = .failure(error) }
                let waiters = state.withLock { s in
                    if case .success(let speech) = made { s.keep(speech, for: key, capacity: capacity) }
                    return s.making.removeValue(forKey: key) ?? []
                }
                let told: Claim = switch made {
                case .success(let speech): .said(speech)
                case .failure: .again
                }
                for waiter in waiters { waiter.resume(returning: told) }
                return try made.get()
            }
        }
    }

    /// How many callers wait for `key` to be made; nil when nobody is making it.
    func waiters(for key: String) -> Int? { state.withLock { $0.making[key]?.count } }
}
