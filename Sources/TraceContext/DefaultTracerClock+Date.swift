import Foundation
import Tracing

extension DefaultTracerClock.Timestamp {
    /// `date`, `milliseconds` later, as a span's time.
    public init(_ date: Date, plusMilliseconds milliseconds: Int = 0) {
        let seconds = date.timeIntervalSince1970 + Double(milliseconds) / 1000
        self.init(nanosecondsSinceEpoch: UInt64(max(0, seconds * 1_000_000_000).rounded()))
    }
}
