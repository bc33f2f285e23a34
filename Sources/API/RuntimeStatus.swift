import Synchronization

/// Facts about the running server that /healthz reports and other parts update.
public final class RuntimeStatus: Sendable {
    private let sip = Atomic<Bool>(false)

    public init() {}

    /// True once the SIP user agent has bound its UDP socket.
    public var sipListening: Bool {
        get { sip.load(ordering: .relaxed) }
        set { sip.store(newValue, ordering: .relaxed) }
    }
}
