import Synchronization

/// How much of each response item was generated and how much was actually played.
///
/// Producers report audio as they queue it for the pacer; the pacer reports each frame it sends.
/// Played time — not generated time — is the truth for transcripts and for truncating the engine's
/// memory of what the caller heard.
public final class PlaybackTracker: Sendable {
    static let keyToneItemPrefix = "key-"

    /// The item a key's tone plays as (a phone menu's key where the line carries no RFC 4733 events).
    public static func keyToneItem(_ key: Character) -> String { keyToneItemPrefix + String(key) }

    public struct Snapshot: Sendable, Equatable {
        /// The response item whose audio was queued last.
        public var currentItem: String?
        public var currentItemPlayedMilliseconds: Int
        public var currentItemGeneratedMilliseconds: Int
        /// Audio queued and not yet played or flushed.
        public var pendingMilliseconds: Int

        public var isPlaying: Bool { pendingMilliseconds > 0 }
        /// The current item is a key's tone (`keyToneItem`): a press, which talking over it does not undo.
        public var playsKeyTone: Bool { currentItem?.hasPrefix(PlaybackTracker.keyToneItemPrefix) == true }
        /// How much of the current item the caller heard: what was played, never more than was
        /// generated (a mark can report a padded last frame).
        public var currentItemHeardMilliseconds: Int { min(currentItemPlayedMilliseconds, currentItemGeneratedMilliseconds) }
    }

    /// The current item's counts live in plain fields (they change on every frame); an item's
    /// counts move to the dictionaries when another item becomes current.
    private struct State {
        var currentItem: String?
        var currentPlayed = 0
        var currentGenerated = 0
        var played: [String: Int] = [:]
        var generated: [String: Int] = [:]
        var order: [String] = []
        var pending = 0
    }

    private let state = Mutex(State())
    /// Items remembered for `playedMilliseconds(item:)`; older ones are forgotten (bounded memory).
    private let retainedItems = 32

    public init() {}

    public func queued(item: String, milliseconds: Int) {
        state.withLock { s in
            if s.currentItem != item { makeCurrent(item, &s) }
            s.currentGenerated += milliseconds
            s.pending += milliseconds
        }
    }

    public func played(item: String, milliseconds: Int) {
        state.withLock { s in
            if s.currentItem == item { s.currentPlayed += milliseconds } else { s.played[item, default: 0] += milliseconds }
            s.pending = max(0, s.pending - milliseconds)
        }
    }

    /// Queued audio was dropped (barge-in, clear): nothing is pending any more.
    public func flushed() {
        state.withLock { $0.pending = 0 }
    }

    public func playedMilliseconds(item: String) -> Int {
        state.withLock { s in s.currentItem == item ? s.currentPlayed : s.played[item] ?? 0 }
    }

    private func makeCurrent(_ item: String, _ s: inout State) {
        if let old = s.currentItem {
            s.played[old] = s.currentPlayed
            s.generated[old] = s.currentGenerated
        }
        if s.generated[item] == nil {
            s.order.append(item)
            if s.order.count > retainedItems {
                let old = s.order.removeFirst()
                s.generated[old] = nil
                s.played[old] = nil
            }
        }
        s.currentItem = item
        s.currentPlayed = s.played[item] ?? 0
        s.currentGenerated = s.generated[item] ?? 0
        // Keep the item known while it is current, so it is retained and ordered like the rest.
        s.generated[item] = s.currentGenerated
    }

    public var snapshot: Snapshot {
        state.withLock { s in
            Snapshot(currentItem: s.currentItem, currentItemPlayedMilliseconds: s.currentPlayed,
                     currentItemGeneratedMilliseconds: s.currentGenerated, pendingMilliseconds: s.pending)
        }
    }
}
