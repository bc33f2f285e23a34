import Foundation
import Testing
@testable import Bridge

@Suite struct TwilioMediaStreamCodecTests {
    typealias Codec = TwilioMediaStreamCodec

    static func event(_ text: String) throws -> (MediaStreamEvent, String?) {
        guard case .message(let e, let sid) = try Codec.decodeEvent(text) else { throw Codec.Failure.notJSONObject }
        return (e, sid)
    }

    @Test func decodesTheDocumentedMessages() throws {
        #expect(try Self.event(#"{"event":"connected","protocol":"Call","version":"1.0.0"}"#).0 == .connected(protocol: "Call", version: "1.0.0"))
        let start = try Self.event(#"{"event":"start","sequenceNumber":"1","start":{"accountSid":"AC1","streamSid":"MZ1","callSid":"CA1","tracks":["inbound"],"customParameters":{"tenant":"acme","n":3},"mediaFormat":{"encoding":"audio/x-mulaw","sampleRate":8000,"channels":1}},"streamSid":"MZ1"}"#)
        #expect(start.0 == .start(MediaStreamStart(streamSid: "MZ1", accountSid: "AC1", callSid: "CA1", tracks: ["inbound"], customParameters: ["tenant": "acme", "n": "3"])))
        let media = try Self.event(#"{"event":"media","sequenceNumber":"4","media":{"track":"inbound","chunk":"2","timestamp":"40","payload":"AAEC/w=="},"streamSid":"MZ1"}"#)
        #expect(media.0 == .media(MediaStreamMedia(track: "inbound", chunk: 2, timestamp: 40, payload: [0, 1, 2, 255])) && media.1 == "MZ1")
        #expect(try Self.event(#"{"event":"media","media":{"chunk":2,"timestamp":40,"payload":""},"streamSid":"MZ1"}"#).0
                == .media(MediaStreamMedia(chunk: 2, timestamp: 40, payload: [])), "numbers as numbers are accepted too")
        #expect(try Self.event(##"{"event":"dtmf","streamSid":"MZ1","sequenceNumber":"5","dtmf":{"track":"inbound_track","digit":"#"}}"##).0 == .dtmf(track: "inbound_track", digit: "#"))
        #expect(try Self.event(#"{"event":"mark","sequenceNumber":"4","streamSid":"MZ1","mark":{"name":"resp_1:chunk_17"}}"#).0 == .mark("resp_1:chunk_17"))
        #expect(try Self.event(#"{"event":"stop","sequenceNumber":"5","stop":{"accountSid":"AC1","callSid":"CA1"},"streamSid":"MZ1"}"#).0 == .stop)
    }

    @Test func unknownEventsAreReportedNotThrown() throws {
        guard case .unknownEvent("hello") = try Codec.decodeEvent(#"{"event":"hello","x":1}"#) else { Issue.record("not reported"); return }
    }

    @Test func malformedMessagesGiveTypedErrors() {
        #expect(throws: Codec.Failure.notJSONObject) { try Codec.decodeEvent("not json") }
        #expect(throws: Codec.Failure.notJSONObject) { try Codec.decodeEvent("[1,2]") }
        #expect(throws: Codec.Failure.missingField("event")) { try Codec.decodeEvent(#"{"x":1}"#) }
        #expect(throws: Codec.Failure.missingField("streamSid")) { try Codec.decodeEvent(#"{"event":"media","media":{"timestamp":"1","payload":"AA=="}}"#) }
        #expect(throws: Codec.Failure.invalidBase64) { try Codec.decodeEvent(#"{"event":"media","streamSid":"MZ","media":{"timestamp":"1","payload":"%%%"}}"#) }
        #expect(throws: Codec.Failure.invalidField("media.timestamp")) { try Codec.decodeEvent(#"{"event":"media","streamSid":"MZ","media":{"timestamp":"soon","payload":"AA=="}}"#) }
        #expect(throws: Codec.Failure.missingField("start.callSid")) { try Codec.decodeEvent(#"{"event":"start","start":{"streamSid":"MZ"}}"#) }
        #expect(throws: Codec.Failure.missingField("mark.name")) { try Codec.decodeEvent(#"{"event":"mark","streamSid":"MZ"}"#) }
        #expect(throws: Codec.Failure.tooLarge(1_048_600)) { try Codec.decodeEvent(String(repeating: " ", count: 1_048_600)) }
    }

    @Test func commandsMatchTheDocumentedShapes() throws {
        let media = Codec.encodeCommand(.media([0, 1, 2, 255]), streamSid: "MZ1")
        let object = try JSONSerialization.jsonObject(with: Data(media.utf8)) as? [String: Any]
        #expect(object?["event"] as? String == "media" && object?["streamSid"] as? String == "MZ1")
        #expect((object?["media"] as? [String: Any])?["payload"] as? String == "AAEC/w==")
        #expect(Codec.encodeCommand(.clear, streamSid: "MZ1") == #"{"event":"clear","streamSid":"MZ1"}"#)
        guard case .message(.mark("a \"quoted\" name"), "MZ1") = try Codec.decodeCommand(Codec.encodeCommand(.mark("a \"quoted\" name"), streamSid: "MZ1")) else {
            Issue.record("mark did not round-trip"); return
        }
    }

    @Test func everyEventRoundTripsThroughTheClientEncoder() throws {
        let events: [MediaStreamEvent] = [
            .connected(protocol: "Call", version: "1.0.0"),
            .start(MediaStreamStart(streamSid: "MZ9", accountSid: "AC9", callSid: "CA9", customParameters: ["call_id": "x\"y", "direction": "inbound"])),
            .media(MediaStreamMedia(chunk: 7, timestamp: 140, payload: (0..<160).map { UInt8($0) })),
            .dtmf(track: "inbound_track", digit: "5"), .mark("m"), .stop,
        ]
        for (n, event) in events.enumerated() {
            let text = Codec.encodeEvent(event, streamSid: "MZ9", sequenceNumber: n)
            #expect(try Self.event(text).0 == event, "\(text)")
        }
    }
}
