#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Nanoseconds on the monotonic clock: one `clock_gettime`, no `Duration` arithmetic, for
/// measurements made on the media path.
public enum MonotonicClock {
    @inlinable
    public static func nanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }
}
