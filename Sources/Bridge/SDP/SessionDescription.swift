/// An SDP session description (RFC 4566), as much of it as a G.711 voice UA reads and writes.
public struct SessionDescription: Sendable, Equatable {
    public struct Media: Sendable, Equatable {
        public var type: String              // "audio"
        public var port: Int
        public var proto: String             // "RTP/AVP"
        public var formats: [Int]            // payload types in preference order
        public var connectionAddress: String?
        public var attributes: [(name: String, value: String?)]

        public init(type: String = "audio", port: Int, proto: String = "RTP/AVP", formats: [Int],
                    connectionAddress: String? = nil, attributes: [(String, String?)] = []) {
            self.type = type
            self.port = port
            self.proto = proto
            self.formats = formats
            self.connectionAddress = connectionAddress
            self.attributes = attributes.map { (name: $0.0, value: $0.1) }
        }

        public func attribute(_ name: String) -> [String] {
            attributes.filter { $0.name == name }.compactMap(\.value)
        }

        /// `a=rtpmap:<pt> <encoding>/<rate>` for `pt`, or the static assignment (RFC 3551).
        public func encoding(of pt: Int) -> (name: String, rate: Int)? {
            for map in attribute("rtpmap") {
                let parts = map.split(separator: " ", maxSplits: 1)
                guard parts.count == 2, Int(parts[0]) == pt else { continue }
                let enc = parts[1].split(separator: "/")
                guard let name = enc.first, enc.count >= 2, let rate = Int(enc[1]) else { return nil }
                return (String(name), rate)
            }
            switch pt {
            case 0: return ("PCMU", 8000)
            case 8: return ("PCMA", 8000)
            default: return nil
            }
        }

        public var direction: String {
            for name in ["sendrecv", "sendonly", "recvonly", "inactive"] where attributes.contains(where: { $0.name == name }) {
                return name
            }
            return "sendrecv"
        }

        public static func == (a: Media, b: Media) -> Bool {
            a.type == b.type && a.port == b.port && a.proto == b.proto && a.formats == b.formats
                && a.connectionAddress == b.connectionAddress
                && a.attributes.map { "\($0.name)=\($0.value ?? "")" } == b.attributes.map { "\($0.name)=\($0.value ?? "")" }
        }
    }

    public var origin: String
    public var sessionName: String
    public var connectionAddress: String?
    public var media: [Media]

    public init(origin: String, sessionName: String = "-", connectionAddress: String?, media: [Media]) {
        self.origin = origin
        self.sessionName = sessionName
        self.connectionAddress = connectionAddress
        self.media = media
    }

    public enum Failure: Error, Equatable {
        case notUTF8
        case missingVersion
        case malformedLine(String)
        case noMedia
    }

    public init(parsing bytes: [UInt8]) throws(Failure) {
        guard let text = String(validating: bytes, as: UTF8.self) else { throw .notUTF8 }
        var origin = ""
        var sessionName = "-"
        var connection: String?
        var media: [Media] = []
        var sawVersion = false
        for rawLine in text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            let line = rawLine.hasSuffix("\r") ? rawLine.dropLast() : Substring(rawLine)
            guard !line.isEmpty else { continue }
            guard line.count >= 2, line[line.index(after: line.startIndex)] == "=" else { throw .malformedLine(String(line.prefix(60))) }
            let type = line.first!
            let value = String(line.dropFirst(2))
            switch type {
            case "v": sawVersion = value == "0"
            case "o": origin = value
            case "s": sessionName = value
            case "c":
                let parts = value.split(separator: " ")
                guard parts.count == 3 else { throw .malformedLine(String(line)) }
                let address = String(parts[2].split(separator: "/").first ?? parts[2])
                if media.isEmpty { connection = address } else { media[media.count - 1].connectionAddress = address }
            case "m":
                let parts = value.split(separator: " ")
                guard parts.count >= 3, let port = parts[1].split(separator: "/", omittingEmptySubsequences: false).first.flatMap({ Int($0) }),
                      (0...65535).contains(port) else {
                    throw .malformedLine(String(line))
                }
                let formats = parts.dropFirst(3).compactMap { Int($0) }
                media.append(Media(type: String(parts[0]), port: port, proto: String(parts[2]), formats: formats))
            case "a":
                guard !media.isEmpty else { continue }   // session-level attributes are not used here
                if let colon = value.firstIndex(of: ":") {
                    media[media.count - 1].attributes.append((String(value[..<colon]), String(value[value.index(after: colon)...])))
                } else {
                    media[media.count - 1].attributes.append((value, nil))
                }
            default: continue
            }
        }
        guard sawVersion else { throw .missingVersion }
        guard !media.isEmpty else { throw .noMedia }
        self.init(origin: origin, sessionName: sessionName, connectionAddress: connection, media: media)
    }

    public func serialized() -> [UInt8] {
        var lines = ["v=0", "o=\(origin)", "s=\(sessionName)"]
        if let connectionAddress { lines.append("c=IN \(connectionAddress.contains(":") ? "IP6" : "IP4") \(connectionAddress)") }
        lines.append("t=0 0")
        for m in media {
            lines.append("m=\(m.type) \(m.port) \(m.proto) \(m.formats.map { "\($0)" }.joined(separator: " "))")
            if let address = m.connectionAddress { lines.append("c=IN \(address.contains(":") ? "IP6" : "IP4") \(address)") }
            for a in m.attributes { lines.append("a=\(a.name)\(a.value.map { ":" + $0 } ?? "")") }
        }
        return Array((lines.joined(separator: "\r\n") + "\r\n").utf8)
    }

    /// Where to send this media: the media-level connection, else the session-level one.
    public func address(of media: Media) -> String? {
        media.connectionAddress ?? connectionAddress
    }
}
