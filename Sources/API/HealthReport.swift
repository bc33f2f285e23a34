import Hummingbird
import Pipeline

/// The body of `GET /healthz`.
struct HealthReport: ResponseEncodable, Equatable {
    var status: String
    var version: String
    var database: String
    var sipListening: Bool
    var engineMode: String
    /// The shared media tick; nil when the server runs without its call system.
    var media: MediaTickReport?
    /// "ok", or "stalled" when Swift's cooperative pool has not run the heartbeat for
    /// `HealthMonitor.stallAfter` (every pool thread blocked): calls and requests are not served.
    var cooperativePool: String
    /// How long the heartbeat has been late, when stalled.
    var poolStalledSeconds: Double?

    enum CodingKeys: String, CodingKey {
        case status, version, database, media
        case cooperativePool = "cooperative_pool"
        case poolStalledSeconds = "pool_stalled_seconds"
        case sipListening = "sip_listening"
        case engineMode = "engine_mode"
    }
}

/// How well the one 20 ms media tick that paces every live leg keeps its schedule.
struct MediaTickReport: Codable, Equatable {
    /// Legs whose outbound audio the tick paces right now.
    var pacedLegs: Int
    var ticks: Int
    /// Ticks that ran more than 10 ms after their deadline.
    var lateTicks: Int
    /// Frames due in those late ticks (one per paced leg per tick).
    var lateFrames: Int
    /// Frames due in ticks more than 40 ms late: more than the playout buffers downstream hide.
    var audiblyLateFrames: Int
    var maxLatenessMilliseconds: Double

    init(legs: Int, statistics: TickStatistics) {
        pacedLegs = legs
        ticks = statistics.ticks
        lateTicks = statistics.lateTicks
        lateFrames = statistics.lateFrames
        audiblyLateFrames = statistics.audiblyLateFrames
        maxLatenessMilliseconds = Double(statistics.maxLatenessNanoseconds) / 1_000_000
    }

    enum CodingKeys: String, CodingKey {
        case ticks
        case pacedLegs = "paced_legs"
        case lateTicks = "late_ticks"
        case lateFrames = "late_frames"
        case audiblyLateFrames = "audibly_late_frames"
        case maxLatenessMilliseconds = "max_lateness_ms"
    }
}
