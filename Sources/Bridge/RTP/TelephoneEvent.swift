/// An RFC 4733 telephone-event payload: event, end bit, volume, duration.
public struct TelephoneEvent: Sendable, Equatable {
    public var event: UInt8
    public var end: Bool
    public var volume: UInt8
    public var duration: UInt16

    public init(event: UInt8, end: Bool, volume: UInt8 = 10, duration: UInt16) {
        self.event = event
        self.end = end
        self.volume = volume & 0x3F
        self.duration = duration
    }

    public init?(parsing payload: [UInt8]) {
        guard payload.count >= 4 else { return nil }
        self.init(event: payload[0], end: payload[1] & 0x80 != 0, volume: payload[1] & 0x3F,
                  duration: UInt16(payload[2]) << 8 | UInt16(payload[3]))
    }

    public func serialized() -> [UInt8] {
        [event, (end ? 0x80 : 0) | (volume & 0x3F), UInt8(duration >> 8), UInt8(duration & 0xFF)]
    }

    /// `0`–`9`, `*`, `#`, `A`–`D`; nil for flash and other events.
    public var digit: Character? {
        switch event {
        case 0...9: Character(String(event))
        case 10: "*"
        case 11: "#"
        case 12...15: Character(UnicodeScalar(UInt8(65) + event - 12))
        default: nil
        }
    }

    public static func event(for digit: Character) -> UInt8? {
        switch digit {
        case "0"..."9": digit.wholeNumberValue.map(UInt8.init)
        case "*": 10
        case "#": 11
        case "A"..."D": UInt8(digit.asciiValue! - 65 + 12)
        default: nil
        }
    }
}

/// Reports each key press once: events are keyed by the RTP timestamp they share (RFC 4733 §2.5.1),
/// so updates and the three repeated end packets add nothing.
public struct TelephoneEventReceiver: Sendable {
    private var reported: [UInt32] = []

    public init() {}

    public mutating func receive(_ event: TelephoneEvent, timestamp: UInt32) -> Character? {
        guard !reported.contains(timestamp), let digit = event.digit else { return nil }
        reported.append(timestamp)
        if reported.count > 16 { reported.removeFirst() }
        return digit
    }
}

/// The packets that send one digit: a start packet (marker set), updates every 50 ms, and the
/// end packet three times — all with the event's start timestamp (RFC 4733 §2.5.2).
public enum TelephoneEventSender {
    public static func packets(for digit: Character, durationMilliseconds: Int = 100) -> [(marker: Bool, payload: [UInt8])] {
        guard let code = TelephoneEvent.event(for: digit) else { return [] }
        let total = min(durationMilliseconds * 8, Int(UInt16.max))
        var out: [(Bool, [UInt8])] = []
        var elapsed = 0
        while elapsed < total {
            elapsed = min(elapsed + 400, total)   // 50 ms at 8 kHz
            guard elapsed < total else { break }
            out.append((out.isEmpty, TelephoneEvent(event: code, end: false, duration: UInt16(elapsed)).serialized()))
        }
        let end = TelephoneEvent(event: code, end: true, duration: UInt16(total)).serialized()
        for i in 0..<3 { out.append((out.isEmpty && i == 0, end)) }
        return out
    }
}
