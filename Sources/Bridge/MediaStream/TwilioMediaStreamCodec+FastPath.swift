import NIOCore

/// The hot path of the Twilio dialect: `media` (and `mark`) messages read with `JSONScanner` and
/// base64 decoded from the frame's bytes; `media` written with one allocation. Anything the scan
/// does not handle goes to the general decoder, which has the final word on errors.
extension TwilioMediaStreamCodec {
    /// The fields of a `media` or `mark` message, as scanned.
    struct ScannedMessage {
        var event: Event = .other
        var streamSid: String?
        var track: String?
        var chunk: Int?
        var timestamp: Int?
        var payload: [UInt8]?
        var markName: String?
        /// Keys read so far, one bit each: a key given twice is left to the general decoder (JSON
        /// leaves which one counts undefined, and the two decoders must agree).
        var seen: UInt16 = 0

        enum Event { case media, mark, other }

        enum Key: UInt16 { case event, streamSid, media, mark, payload, track, chunk, timestamp, name }

        /// False when `key` was already read.
        mutating func first(_ key: Key) -> Bool {
            let bit: UInt16 = 1 << key.rawValue
            defer { seen |= bit }
            return seen & bit == 0
        }
    }

    /// nil: not a plain `media`/`mark` message; let the general decoder look at it.
    static func scan(_ text: String) -> ScannedMessage? {
        var text = text
        return text.withUTF8 { scan(utf8: $0) }
    }

    static func scan(utf8 bytes: UnsafeBufferPointer<UInt8>) -> ScannedMessage? {
        guard bytes.count <= maximumMessageSize else { return nil }
        var scanner = JSONScanner(bytes)
        var message = ScannedMessage()
        do {
            try scanner.beginObject()
            while let key = try scanner.nextKey() {
                if scanner.matches(key, "event") {
                    guard message.first(.event) else { return nil }
                    let value = try scanner.stringRange()
                    message.event = scanner.matches(value, "media") ? .media : scanner.matches(value, "mark") ? .mark : .other
                    if message.event == .other { return nil }
                } else if scanner.matches(key, "streamSid") {
                    guard message.first(.streamSid) else { return nil }
                    message.streamSid = scanner.string(try scanner.stringRange())
                } else if scanner.matches(key, "media") {
                    guard message.first(.media) else { return nil }
                    try scanner.beginObject()
                    while let key = try scanner.nextKey() {
                        if scanner.matches(key, "payload") {
                            guard message.first(.payload), let payload = Base64.decode(scanner.text(try scanner.stringRange())) else { return nil }
                            message.payload = payload
                        } else if scanner.matches(key, "track") {
                            guard message.first(.track) else { return nil }
                            message.track = scanner.string(try scanner.stringRange())
                        } else if scanner.matches(key, "chunk") {
                            guard message.first(.chunk) else { return nil }
                            message.chunk = try scanner.integer()
                        } else if scanner.matches(key, "timestamp") {
                            guard message.first(.timestamp) else { return nil }
                            message.timestamp = try scanner.integer()
                        } else {
                            try scanner.skipValue()
                        }
                    }
                } else if scanner.matches(key, "mark") {
                    guard message.first(.mark) else { return nil }
                    try scanner.beginObject()
                    while let key = try scanner.nextKey() {
                        if scanner.matches(key, "name") {
                            guard message.first(.name) else { return nil }
                            message.markName = scanner.string(try scanner.stringRange())
                        } else {
                            try scanner.skipValue()
                        }
                    }
                } else {
                    try scanner.skipValue()
                }
            }
            try scanner.end()
        } catch {
            return nil
        }
        return message.event == .other ? nil : message
    }

    /// A scanned inbound event, or nil when the general decoder must decide.
    static func fastEvent(_ text: String) -> Decoded<MediaStreamEvent>? {
        scan(text).flatMap(event)
    }

    /// The same, from a frame's UTF-8 bytes (no `String` made for a `media` message).
    public static func fastEvent(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Decoded<MediaStreamEvent>? {
        scan(utf8: bytes).flatMap(event)
    }

    private static func event(_ m: ScannedMessage) -> Decoded<MediaStreamEvent>? {
        switch m.event {
        case .media:
            guard let sid = m.streamSid, let payload = m.payload, let timestamp = m.timestamp else { return nil }
            return .message(.media(MediaStreamMedia(track: m.track ?? "inbound", chunk: m.chunk ?? 0, timestamp: timestamp, payload: payload)), streamSid: sid)
        case .mark:
            guard let name = m.markName else { return nil }
            return .message(.mark(name), streamSid: m.streamSid)
        case .other:
            return nil
        }
    }

    /// A scanned outbound command, or nil when the general decoder must decide.
    static func fastCommand(_ text: String) -> Decoded<MediaStreamCommand>? {
        guard let m = scan(text) else { return nil }
        switch m.event {
        case .media:
            guard let payload = m.payload else { return nil }
            return .message(.media(payload), streamSid: m.streamSid)
        case .mark:
            guard let name = m.markName else { return nil }
            return .message(.mark(name), streamSid: m.streamSid)
        case .other:
            return nil
        }
    }

    /// An outbound `media` message as the bytes of a text frame: `prefix` (the UTF-8 of
    /// `mediaPrefix(streamSid:)`; a leg keeps it), the base64 payload, the closing.
    public static func encodeMedia(_ payload: [UInt8], prefix: some Collection<UInt8>) -> ByteBuffer {
        base64Message(prefix: prefix, payload: payload, suffix: "\"}}")
    }

    /// `prefix` + base64(`payload`) + `suffix`, written straight into one buffer.
    static func base64Message(prefix: some Collection<UInt8>, payload: [UInt8], suffix: StaticString) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(prefix.count + Base64.encodedCount(payload.count) + suffix.utf8CodeUnitCount)
        buffer.writeBytes(prefix)
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: Base64.encodedCount(payload.count)) { out in
            payload.withUnsafeBufferPointer { Base64.encode($0, into: out.bindMemory(to: UInt8.self)) }
        }
        buffer.writeStaticString(suffix)
        return buffer
    }
}
