@testable import Bridge
import Calls
import Foundation
import Knowledge
import NIOCore

/// The untrusted-input parsers, one fuzz target each. Every one must return (or throw) on any
/// input; where two decoders must agree, a disagreement is a crash, so libFuzzer keeps the input.
enum FuzzTarget: String, CaseIterable {
    /// SIP messages, and the header values read from them (Via, CSeq, From/To, Contact).
    case sip
    /// A SIP byte stream (TCP, TLS) cut into messages by Content-Length, each one parsed.
    case sipStream = "sip-stream"
    /// Packets into libsrtp2's unprotect (RTP and RTCP): C code fed what any peer sends; and the
    /// input sealed by a keyed peer, which must open to itself.
    case srtp
    /// SDP bodies, and our answer to (or acceptance of) what parses.
    case sdp
    /// RTP packets: what parses serializes back to the same packet.
    case rtp
    case rtcp
    /// RFC 4733 telephone-event payloads.
    case telephoneEvent = "telephone-event"
    /// Twilio media-stream messages: the byte scanner and the full decoder agree wherever the scanner answers.
    case twilio
    /// The other providers' dialects (Telnyx, Plivo, Exotel).
    case dialects
    /// `WWW-Authenticate` / `Proxy-Authenticate` digest challenges.
    case digest
    /// The YAML configuration file, through the whole loader (every section's checks).
    case config
    /// An uploaded knowledge document (the first byte picks FAQ CSV, Markdown or text), the search
    /// terms of its text, and the question test the local engine applies to a caller's words.
    case knowledge

    static let selected: FuzzTarget = {
        let name = ProcessInfo.processInfo.environment["FUZZ_TARGET"] ?? ""
        guard let target = FuzzTarget(rawValue: name) else {
            fatalError("FUZZ_TARGET must be one of \(allCases.map(\.rawValue).joined(separator: ", ")), got '\(name)'")
        }
        return target
    }()

    func run(_ bytes: [UInt8]) {
        switch self {
        case .sip: Self.sip(bytes)
        case .sipStream: Self.sipStream(bytes)
        case .srtp: Self.srtp(bytes)
        case .sdp: Self.sdp(bytes)
        case .rtp: Self.rtp(bytes)
        case .rtcp: _ = RTCPPacket.parse(bytes)
        case .telephoneEvent: _ = TelephoneEvent(parsing: bytes)
        case .twilio: Self.twilio(bytes)
        case .dialects: Self.dialects(bytes)
        case .digest: Self.digest(bytes)
        case .config: Self.config(bytes)
        case .knowledge: Self.knowledge(bytes)
        }
    }

    static func knowledge(_ bytes: [UInt8]) {
        guard let first = bytes.first else { return }
        let name = ["faq.csv", "guide.md", "notes.txt"][Int(first % 3)]
        let document = try? KnowledgeDocument.parse(name: name, bytes: Array(bytes.dropFirst()), sha256: "")
        for chunk in document?.chunks ?? [] { _ = (chunk.titleTerms, chunk.textTerms) }
        let text = String(decoding: bytes.dropFirst(), as: UTF8.self)
        _ = (KnowledgeTerms.queryTerms(of: text), KnowledgeAnswerPolicy.isQuestion(text))
    }

    static func sip(_ bytes: [UInt8]) {
        _ = SIPRateLimiter.startsSomething(bytes)
        guard let message = try? SIPParser.parse(bytes) else {
            _ = SIPParser.answerableBadRequest(bytes)?.serialized()
            return
        }
        _ = (message.method, message.statusCode, message.callID, message.cseq, message.topVia?.branch,
             message.from?.tag, message.to?.tag, message.contact?.uri.description, message.requestURI)
        _ = SIPUserAgent.sipfragStatus(message.body)
        _ = try? SIPParser.parse(message.serialized())
    }

    /// The input arrives in segments as TCP may cut it (the first byte picks the segment length), so
    /// the framer's resumed search for the blank line is fuzzed too.
    static func sipStream(_ bytes: [UInt8]) {
        guard let first = bytes.first else { return }
        let segment = Int(first % 32) + 1
        var framer = SIPStreamFramer()
        var buffer = ByteBuffer()
        var consumed = 0
        var offset = 1
        while offset < bytes.count {
            buffer.writeBytes(bytes[offset..<min(offset + segment, bytes.count)])
            offset += segment
            do {
                while let message = try framer.nextMessage(in: &buffer) {
                    precondition(!message.isEmpty && buffer.readerIndex > consumed, "the framer returned a message without consuming bytes")
                    consumed = buffer.readerIndex
                    _ = try? SIPParser.parse(message)
                }
            } catch { return }   // the connection would be closed here
        }
    }

    /// Our session and the peer's (keys crossed), one each for the whole run, as a call has:
    /// replay state builds up as it would.
    static let srtpSession = try! SRTPSession(keys: SRTPKeys(local: Array(repeating: 1, count: 30), remote: Array(0..<30)))
    static let srtpPeer = try! SRTPSession(keys: SRTPKeys(local: Array(0..<30), remote: Array(repeating: 1, count: 30)))

    static func srtp(_ bytes: [UInt8]) {
        // What anyone can send: arbitrary bytes, nearly all refused at the tag.
        if let opened = srtpSession.unprotect(bytes) { precondition(opened.count <= bytes.count - 10, "an opened packet longer than its ciphertext") }
        if let opened = srtpSession.unprotectRTCP(bytes) { precondition(opened.count <= bytes.count - 14, "an opened report longer than its ciphertext") }
        // What only the keyed peer can send: the input sealed by it, which must open to itself. This
        // takes libsrtp's decryption, authentication and replay paths over fuzzed headers (CSRCs,
        // extensions, padding), which random bytes never pass the tag to reach. One SSRC, so the
        // run keeps one stream per session, as a call does.
        guard bytes.count >= 12 else { return }
        var packet = bytes
        packet.replaceSubrange(8..<12, with: [0, 0, 0x12, 0x34])
        if let sealed = srtpPeer.protect(packet), let opened = srtpSession.unprotect(sealed) { precondition(opened == packet, "a sealed packet opened to other bytes") }
        var report = bytes
        report.replaceSubrange(4..<8, with: [0, 0, 0x12, 0x34])
        if let sealed = srtpPeer.protectRTCP(report), let opened = srtpSession.unprotectRTCP(sealed) { precondition(opened == report, "a sealed report opened to other bytes") }
    }

    static func sdp(_ bytes: [UInt8]) {
        guard let description = try? SessionDescription(parsing: bytes) else { return }
        _ = SDPNegotiation.answer(to: description, address: "127.0.0.1", port: 40000, sessionID: 1)
        _ = SDPNegotiation.answer(to: description, address: "127.0.0.1", port: 40000, srtp: .optional, crypto: SDESCrypto(tag: 1, keyAndSalt: Array(0..<30)), sessionID: 1)
        _ = SDPNegotiation.accept(answer: description, offered: SDESCrypto(tag: 1, keyAndSalt: Array(0..<30)), srtp: .required)
        _ = SDPNegotiation.accept(answer: description)
        _ = try? SessionDescription(parsing: description.serialized())
    }

    static func rtp(_ bytes: [UInt8]) {
        guard let packet = try? RTPPacket(parsing: bytes) else { return }
        let again = try? RTPPacket(parsing: packet.serialized())
        precondition(again == packet, "an RTP packet did not survive serialization: \(bytes)")
    }

    static func twilio(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        let fromBytes = bytes.withUnsafeBufferPointer { TwilioMediaStreamCodec.fastEvent(utf8: $0) }
        if let fast = TwilioMediaStreamCodec.fastEvent(text) {
            precondition(describe(fromBytes) == describe(fast), "the scanner read the text and its bytes differently: \(text)")
            let full = try? TwilioMediaStreamCodec.parseEvent(text)
            precondition(describe(full) == describe(fast), "scanner and decoder disagree on \(text): \(describe(fast)) vs \(describe(full))")
        }
        _ = try? TwilioMediaStreamCodec.decodeEvent(text)
        if let fast = TwilioMediaStreamCodec.fastCommand(text) {
            let full = try? TwilioMediaStreamCodec.parseCommand(text)
            precondition(describe(full) == describe(fast), "scanner and decoder disagree on the command \(text)")
        }
        _ = try? TwilioMediaStreamCodec.decodeCommand(text)
    }

    static func dialects(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        _ = try? OtherDialects.decodeTelnyx(text)
        _ = try? OtherDialects.decodePlivo(text)
        _ = try? OtherDialects.decodeExotel(text)
    }

    static func digest(_ bytes: [UInt8]) {
        guard let challenge = DigestChallenge(String(decoding: bytes, as: UTF8.self)) else { return }
        _ = challenge.authorization(method: "INVITE", uri: "sip:bob@127.0.0.1", username: "alice", password: "secret")
    }

    /// A file that loads must load the same way twice (the loader keeps no state between loads);
    /// anything else must be a ConfigError with a message, never a crash.
    static func config(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        do {
            let first = try VoiceBridgeConfig(source: try ConfigSource(yaml: text, fileName: "fuzz.yaml"))
            let again = try? VoiceBridgeConfig(source: try ConfigSource(yaml: text, fileName: "fuzz.yaml"))
            precondition(again == first, "the same file loaded differently twice: \(text)")
        } catch let error as ConfigError {
            precondition(!error.description.isEmpty)
        } catch {
            preconditionFailure("the loader threw something other than a ConfigError: \(error)")
        }
    }

    static func describe<Message>(_ decoded: TwilioMediaStreamCodec.Decoded<Message>?) -> String {
        decoded.map { "\($0)" } ?? "nil"
    }
}
