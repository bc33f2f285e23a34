import Testing

/// Which step of `make test` a suite runs in (scripts/test-lanes.py reads these tags from the
/// sources; scripts/make-test.sh runs the steps). A suite without one runs in the shared pass,
/// a few tests at a time beside the e2e suites: it must not depend on how busy the machine is.
extension Tag {
    /// Whole calls on a virtual clock (`VirtualCallHarness`, test runs): no load changes their
    /// verdicts, but each keeps a core busy while it runs, so they have a step of their own rather
    /// than slowing the real-time checks beside them.
    @Tag public static var virtualTime: Self
    /// Calls over real SIP or a browser that must hear speech or keys in real time: a few at a
    /// time with nothing else beside them.
    @Tag public static var realTimeCalls: Self
    /// Checks of the wire and the clock that measure time, memory or audio as it happens (pacing,
    /// SIP timers, a real peer's audio, barge-in): alone, one test at a time.
    @Tag public static var timed: Self
    /// Measures its own process (the allocator's bytes in use) and waits out real timers while
    /// doing little: alone in a process of its own, which runs beside the shared pass — nothing
    /// else allocates in that process, and its bounds are far from what load moves.
    @Tag public static var ownProcess: Self
}
