import Hummingbird

/// The body of `GET /healthz`.
struct HealthReport: ResponseEncodable, Equatable {
    var status: String
    var version: String
    var database: String
    var sipListening: Bool
    var engineMode: String

    enum CodingKeys: String, CodingKey {
        case status, version, database
        case sipListening = "sip_listening"
        case engineMode = "engine_mode"
    }
}
