import Foundation
import NIOCore
import Testing
@testable import Bridge

/// The media hot path (scanner + base64) must agree with the general decoder and with
/// Foundation's base64 on everything it accepts, and hand everything else to the general path.
@Suite struct MediaFastPathTests {
    typealias Codec = TwilioMediaStreamCodec

    /// What a decoder made of a text, comparable between the fast and the general path.
    enum Outcome<Message: Equatable & Sendable>: Equatable {
        case message(Message, String?)
        case unknown(String)
        case failure(Codec.Failure)
    }

    static func outcome<Message>(_ decode: () throws(Codec.Failure) -> Codec.Decoded<Message>) -> Outcome<Message> {
        do {
            switch try decode() {
            case .message(let message, let sid): return .message(message, sid)
            case .unknownEvent(let name), .acknowledged(let name): return .unknown(name)
            }
        } catch { return .failure(error) }
    }

    // MARK: Base64

    static func encode(_ bytes: [UInt8]) -> String {
        bytes.withUnsafeBufferPointer { input in
            String(unsafeUninitializedCapacity: Base64.encodedCount(input.count)) { Base64.encode(input, into: $0) }
        }
    }

    static func decode(_ text: String) -> [UInt8]? {
        Array(text.utf8).withUnsafeBufferPointer { Base64.decode($0) }
    }

    @Test func base64AgreesWithFoundationBothWays() {
        var generator = SystemRandomNumberGenerator()
        for length in 0...200 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let reference = Data(bytes).base64EncodedString()
            #expect(Self.encode(bytes) == reference, "length \(length)")
            #expect(Self.decode(reference) == bytes, "length \(length)")
        }
    }

    /// Strict RFC 4648. (Foundation on Linux also takes "AB=C" and "===="; when the fast path
    /// refuses a payload the general decoder, which uses Foundation, still has the last word.)
    @Test func base64RefusesWhatIsNotPaddedBase64() {
        for text in ["A", "AB", "ABC", "ABCDE", "AB=C", "A===", "====", "AB CD", "AB\nCD", "ABC*", "AB==AB==", "=ABC", "AB%D", "ÀBCD"] {
            #expect(Self.decode(text) == nil, "\(text) is not padded base64")
        }
        #expect(Self.decode("") == [])
        #expect(Self.decode("ABC=") == [0, 16] && Self.decode("AB==") == [0])
    }

    // MARK: Scanner vs general decoder

    /// Messages the scanner handles: it must give exactly what the general decoder gives.
    static let scannable = [
        #"{"event":"media","sequenceNumber":"4","media":{"track":"inbound","chunk":"2","timestamp":"40","payload":"AAEC/w=="},"streamSid":"MZ1"}"#,
        #"{"streamSid":"MZ1","media":{"payload":"AAEC/w==","timestamp":40,"chunk":2},"event":"media"}"#,
        #" { "event" : "media" , "streamSid" : "MZ1" , "media" : { "timestamp" : "-5" , "payload" : "" } } "#,
        #"{"event":"media","extra":{"a":[1,2.5e3,{"b":null}],"c":true,"d":false,"e":[]},"streamSid":"MZ1","media":{"timestamp":"7","payload":"/w==","x":[]}}"#,
        #"{"event":"mark","sequenceNumber":"4","streamSid":"MZ1","mark":{"name":"resp_1:chunk_17"}}"#,
        #"{"event":"mark","mark":{"name":"item-3#200#0"}}"#,
    ]

    /// Messages the scanner must leave to the general decoder (it returns nil for them).
    static let deferred = [
        #"{"event":"media","streamSid":"MZ1","media":{"timestamp":"1","payload":"AA\u003d\u003d"}}"#,   // escapes
        #"{"event":"media","streamSid":"MZ1","media":{"timestamp":"1.0","payload":"AA=="}}"#,
        #"{"event":"media","streamSid":"MZ1","media":{"timestamp":"1","payload":"%%%"}}"#,
        #"{"event":"media","media":{"timestamp":"1","payload":"AA=="}}"#,
        #"{"event":"media","streamSid":"MZ1","media":{"payload":"AA=="}}"#,
        #"{"event":"media","streamSid":"MZ1","media":{"timestamp":"1","payload":"AA=="},}"#,
        #"{"event":"media","streamSid":"MZ1","media":{"timestamp":"1","payload":"AA=="}} trailing"#,
        #"{"event":"media","streamSid":"MZ1","junk":tru,"media":{"timestamp":"1","payload":"AA=="}}"#,
        #"{"event":"start","start":{"streamSid":"MZ","callSid":"CA"}}"#,
        #"{"event":"stop","streamSid":"MZ1"}"#,
        #"{"event":"mark","streamSid":"MZ"}"#,
        "not json",
        #"{"event":"media","streamSid":"MZ1","media":{"timestamp":"1","payload":"AA=="}"#,
        // A key given twice (found by `make fuzz`): which one counts is the general decoder's call.
        #"{"event":"media","media":{"timestamp":"5","payload":"AA=="},"media":{"timestamp":"5"},"streamSid":"MZ2"}"#,
        #"{"event":"media","streamSid":"MZ1","media":{"timestamp":"1","payload":"AA==","payload":"AQ=="}}"#,
        #"{"event":"mark","event":"media","streamSid":"MZ1","media":{"timestamp":"1","payload":"AA=="}}"#,
    ]

    @Test func scannedMessagesMatchTheGeneralDecoder() {
        for text in Self.scannable {
            #expect(Codec.fastEvent(text) != nil, "the scanner should handle \(text)")
            let fromBytes = Array(text.utf8).withUnsafeBufferPointer { Codec.fastEvent(utf8: $0) }
            guard let fromBytes else { Issue.record("the scanner should handle \(text) from bytes"); continue }
            #expect(Self.outcome { () throws(Codec.Failure) in fromBytes } == Self.outcome { () throws(Codec.Failure) in try Codec.parseEvent(text) }, "\(text) from bytes")
            #expect(Self.outcome { () throws(Codec.Failure) in try Codec.decodeEvent(text) } == Self.outcome { () throws(Codec.Failure) in try Codec.parseEvent(text) }, "\(text)")
            #expect(Self.outcome { () throws(Codec.Failure) in try Codec.decodeCommand(text) } == Self.outcome { () throws(Codec.Failure) in try Codec.parseCommand(text) }, "\(text)")
        }
    }

    @Test func everythingElseGoesToTheGeneralDecoder() {
        for text in Self.deferred {
            #expect(Codec.fastEvent(text) == nil, "the scanner should defer \(text)")
            #expect(Codec.fastCommand(text) == nil || Self.outcome { () throws(Codec.Failure) in try Codec.decodeCommand(text) }
                    == Self.outcome { () throws(Codec.Failure) in try Codec.parseCommand(text) }, "\(text) as a command")
            #expect(Self.outcome { () throws(Codec.Failure) in try Codec.decodeEvent(text) } == Self.outcome { () throws(Codec.Failure) in try Codec.parseEvent(text) }, "\(text)")
        }
        // The escaped payload is valid JSON for "AA==": the general decoder accepts it.
        #expect(Self.outcome { () throws(Codec.Failure) in try Codec.decodeEvent(Self.deferred[0]) } == .message(.media(MediaStreamMedia(chunk: 0, timestamp: 1, payload: [0])), "MZ1"))
    }

    /// Found by `make fuzz` (twilio, 9.3 M executions): a value nested 50,000 deep overflowed the
    /// scanner's stack as it skipped it. Past 32 levels the scanner defers, and the decoder refuses.
    /// Found by CI's `make fuzz` (twilio): the scanner skipped any run of `0-9 + - . e E` as a number,
    /// so `{…,"x":+,…}` was a `mark` to it and not JSON to the decoder.
    @Test func aSkippedNumberIsAJSONNumberOrTheDecoderDecides() {
        for (number, isJSON) in [("+", false), ("+1", false), ("1-", false), ("01", false), ("-", false), ("1e", false),
                                 (".5", false), ("1.", false), ("1e999", false), ("-1e400", false),
                                 ("0", true), ("-0", true), ("1E+2", true), ("1.5e-3", true), ("-12.25", true),
                                 ("123456789012345678901234567890", true), ("1e-999", true)] {
            let text = #"{"event":"mark","x":\#(number),"mark":{"name":"a"}}"#
            #expect((Codec.fastEvent(text) != nil) == isJSON, "\(number) \(isJSON ? "skipped" : "deferred") by the scanner")
            #expect(Self.outcome { () throws(Codec.Failure) in try Codec.decodeEvent(text) } == Self.outcome { () throws(Codec.Failure) in try Codec.parseEvent(text) }, "\(number)")
        }
        // The same for a number the scanner reads (a field Twilio sends as a string, "007" there).
        for (timestamp, isJSON) in [("007", false), ("-01", false), ("7", true), ("-0", true), (#""007""#, true)] {
            let text = #"{"event":"media","streamSid":"MZ","media":{"timestamp":\#(timestamp),"payload":"AA=="}}"#
            #expect((Codec.fastEvent(text) != nil) == isJSON, "timestamp \(timestamp) \(isJSON ? "read" : "deferred") by the scanner")
            #expect(Self.outcome { () throws(Codec.Failure) in try Codec.decodeEvent(text) } == Self.outcome { () throws(Codec.Failure) in try Codec.parseEvent(text) }, "timestamp \(timestamp)")
        }
    }

    @Test func aDeeplyNestedValueIsRefusedNotAStackOverflow() {
        for depth in [33, 50_000] {
            for open in ["[", "{\"a\":"] {
                let text = "{\"event\":\"media\",\"x\":" + String(repeating: open, count: depth) + "1"
                    + String(repeating: open == "[" ? "]" : "}", count: depth) + "}"
                #expect(Codec.fastEvent(text) == nil, "deferred at depth \(depth)")
                let fromBytes = Array(text.utf8).withUnsafeBufferPointer { Codec.fastEvent(utf8: $0) }
                #expect(fromBytes == nil)
                #expect(Self.outcome { () throws(Codec.Failure) in try Codec.decodeEvent(text) } == Self.outcome { () throws(Codec.Failure) in try Codec.parseEvent(text) })
            }
        }
        let shallow = "{\"event\":\"mark\",\"streamSid\":\"MZ1\",\"x\":[[[1]]],\"mark\":{\"name\":\"m\"}}"
        #expect(Codec.fastEvent(shallow) != nil, "a few levels are still skipped by the scanner")
    }

    @Test func outboundMediaRoundTripsThroughBothDecoders() {
        let payload = (0..<160).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let prefix = Codec.mediaPrefix(streamSid: "MZ\"odd\"")
        let text = Codec.encodeCommand(.media(payload), streamSid: "MZ\"odd\"")
        #expect(Codec.encodeMedia(payload, prefix: Array(prefix.utf8)) == ByteBuffer(string: text), "the leg's cached prefix writes the same message")
        #expect(Self.outcome { () throws(Codec.Failure) in try Codec.parseCommand(text) } == .message(MediaStreamCommand.media(payload), "MZ\"odd\""))
        let json = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        #expect((json?["media"] as? [String: Any])?["payload"] as? String == Data(payload).base64EncodedString())
    }
}
