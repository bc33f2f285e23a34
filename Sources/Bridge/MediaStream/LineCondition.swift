import Foundation
import Pipeline

/// What a simulated line does to the audio the agent hears: noise behind the person (a
/// `LineNoise` at a speech-to-noise ratio) and the agent's own voice coming back (echo, this many
/// dB below it, after a delay) — the line a test run (`POST /api/tests`, `"line"`) puts a suite's
/// calls on, and what `make bench`'s `line` suite measures the agent over.
public struct LineCondition: Sendable, Equatable, Encodable {
    public var noise: LineNoise?
    /// The person's speech to the noise, in dB (the speech's level measured where it is voiced).
    public var snrDB: Double
    /// The agent's echo, in dB relative to what it sends; nil: no echo.
    public var echoDB: Double?
    public var echoDelayMilliseconds: Int

    public static let snrRange = -5.0...40
    public static let echoRange = -40.0...0
    public static let echoDelayRange = 0...1000

    /// A field of the condition that is out of its range, named as the API names it.
    public struct Problem: Error, Sendable, Equatable {
        public var field: String
        public var message: String
    }

    public init(noise: LineNoise? = nil, snrDB: Double = 10, echoDB: Double? = nil, echoDelayMilliseconds: Int = 150) throws(Problem) {
        guard Self.snrRange.contains(snrDB) else { throw Problem(field: "snr_db", message: "must be \(Int(Self.snrRange.lowerBound)) to \(Int(Self.snrRange.upperBound))") }
        if let echoDB, !Self.echoRange.contains(echoDB) {
            throw Problem(field: "echo_db", message: "must be \(Int(Self.echoRange.lowerBound)) to \(Int(Self.echoRange.upperBound))")
        }
        guard Self.echoDelayRange.contains(echoDelayMilliseconds) else {
            throw Problem(field: "echo_delay_ms", message: "must be \(Self.echoDelayRange.lowerBound) to \(Self.echoDelayRange.upperBound)")
        }
        self.noise = noise
        self.snrDB = snrDB
        self.echoDB = echoDB
        self.echoDelayMilliseconds = echoDelayMilliseconds
    }

    enum CodingKeys: String, CodingKey { case noise, snrDB = "snr_db", echoDB = "echo_db", echoDelayMilliseconds = "echo_delay_ms" }

    /// The noise called `name`, or the problem naming the ones there are.
    public static func noise(named name: String) throws(Problem) -> LineNoise {
        guard let noise = LineNoise(rawValue: name) else {
            throw Problem(field: "noise", message: "must be one of \(LineNoise.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return noise
    }

    /// A clean line: nothing added.
    public var isClean: Bool { noise == nil && echoDB == nil }

    /// "babble at 10 dB, echo at −10 dB after 150 ms", "clean".
    public var description: String {
        var parts: [String] = []
        if let noise { parts.append("\(noise.rawValue) at \(Self.decibels(snrDB)) dB") }
        if let echoDB { parts.append("echo at \(Self.decibels(echoDB)) dB after \(echoDelayMilliseconds) ms") }
        return parts.isEmpty ? "clean" : parts.joined(separator: ", ")
    }

    private static func decibels(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
    }
}
