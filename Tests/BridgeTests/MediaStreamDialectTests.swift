import Foundation
import NIOCore
import Pipeline
import Testing
@testable import Bridge

/// Each dialect's codec against the provider's documented example messages (PROTOCOLS.md §2):
/// what comes in becomes the same events as Twilio's; what goes out is what the provider reads.
@Suite struct MediaStreamDialectTests {
    typealias Decoded = TwilioMediaStreamCodec.Decoded<MediaStreamEvent>

    static let silence = [UInt8](repeating: 0xFF, count: 160)
    static let b64 = Data(silence).base64EncodedString()

    func event(_ d: MediaStreamDialect, _ text: String) throws -> MediaStreamEvent? {
        if case .message(let event, _) = try d.decodeEvent(text) { return event }
        return nil
    }

    func json(_ text: String?) throws -> [String: Any] {
        let text = try #require(text)
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    // MARK: Telnyx (§2.1)

    @Test func telnyxDocumentedMessages() throws {
        let t = MediaStreamDialect.telnyx
        #expect(try event(t, #"{"event":"connected","version":"1.0.0"}"#) == .connected(protocol: "Call", version: "1.0.0"))
        let start = try event(t, #"""
            {"event":"start","sequence_number":"1","start":{"user_id":"3E6F995F","call_control_id":"v3:abc","client_state":"\#(Data("tenant=acme".utf8).base64EncodedString())",
             "media_format":{"encoding":"PCMU","sample_rate":8000,"channels":1}},"stream_id":"32DE0DEA-53CB-4B21-89A4-9E1819C043BC"}
            """#)
        guard case .start(let s) = start else { Issue.record("not a start: \(String(describing: start))"); return }
        #expect(s.streamSid == "32DE0DEA-53CB-4B21-89A4-9E1819C043BC" && s.callSid == "v3:abc")
        #expect(s.customParameters["client_state"] == "tenant=acme" && s.customParameters["call_control_id"] == "v3:abc")
        #expect(try event(t, #"{"event":"media","sequence_number":"4","media":{"track":"inbound","chunk":"2","timestamp":"5","payload":"\#(Self.b64)"},"stream_id":"32DE"}"#)
                == .media(MediaStreamMedia(chunk: 2, timestamp: 5, payload: Self.silence)))
        #expect(try event(t, #"{"event":"dtmf","stream_id":"32DE","dtmf":{"digit":"1"}}"#) == .dtmf(track: "inbound_track", digit: "1"))
        #expect(try event(t, #"{"event":"mark","stream_id":"32DE","mark":{"name":"x"}}"#) == .mark("x"))
        #expect(try event(t, #"{"event":"stop","sequence_number":"9","stop":{"user_id":"u","call_control_id":"c"},"stream_id":"32DE"}"#) == .stop)
        guard case .acknowledged = try t.decodeEvent(#"{"event":"error","stream_id":"32DE","payload":{"code":100002}}"#) else { Issue.record("error frame"); return }
        #expect(throws: TwilioMediaStreamCodec.Failure.self) {
            try t.decodeEvent(#"{"event":"start","start":{"media_format":{"encoding":"OPUS","sample_rate":16000}},"stream_id":"x"}"#)
        }
        // Out: the three messages Telnyx reads.
        #expect(try json(String(buffer: t.encodeMedia(Self.silence, prefix: t.mediaPrefix(streamSid: "32DE").utf8))) as NSDictionary
                == ["event": "media", "media": ["payload": Self.b64]])
        #expect(try json(t.encodeCommand(.mark("x"), streamSid: "32DE")) as NSDictionary == ["event": "mark", "stream_id": "32DE", "mark": ["name": "x"]])
        #expect(try json(t.encodeCommand(.clear, streamSid: "32DE")) as NSDictionary == ["event": "clear", "stream_id": "32DE"])
    }

    // MARK: Plivo (§2.3)

    @Test func plivoDocumentedMessages() throws {
        let p = MediaStreamDialect.plivo
        let start = try event(p, #"""
            {"event":"start","sequenceNumber":1,"start":{"callId":"uuid-call","streamId":"uuid-stream","accountId":"MA123","tracks":["inbound"],
             "mediaFormat":{"encoding":"audio/x-mulaw","sampleRate":8000}},"extra_headers":"tenant=acme;to=+15550100"}
            """#)
        guard case .start(let s) = start else { Issue.record("not a start"); return }
        #expect(s.streamSid == "uuid-stream" && s.callSid == "uuid-call" && s.accountSid == "MA123")
        #expect(s.customParameters == ["tenant": "acme", "to": "+15550100"])
        #expect(try event(p, #"{"event":"media","sequenceNumber":42,"streamId":"uuid-stream","media":{"track":"inbound","timestamp":"1705312200000","chunk":41,"payload":"\#(Self.b64)"}}"#)
                == .media(MediaStreamMedia(chunk: 41, timestamp: 1_705_312_200_000, payload: Self.silence)))
        #expect(try event(p, #"{"event":"dtmf","streamId":"uuid-stream","dtmf":{"digit":"5"}}"#) == .dtmf(track: "inbound_track", digit: "5"))
        #expect(try event(p, #"{"event":"playedStream","streamId":"uuid-stream","name":"cp1"}"#) == .mark("cp1"), "a played checkpoint is a mark's echo")
        guard case .acknowledged = try p.decodeEvent(#"{"event":"clearedAudio","streamId":"uuid-stream"}"#) else { Issue.record("clearedAudio"); return }
        #expect(throws: TwilioMediaStreamCodec.Failure.self, "l16 is refused with a message naming the contentType") {
            try p.decodeEvent(#"{"event":"start","start":{"streamId":"s","mediaFormat":{"encoding":"audio/x-l16","sampleRate":16000}}}"#)
        }
        #expect(try json(String(buffer: p.encodeMedia(Self.silence, prefix: p.mediaPrefix(streamSid: "uuid-stream").utf8))) as NSDictionary
                == ["event": "playAudio", "media": ["contentType": "audio/x-mulaw", "sampleRate": 8000, "payload": Self.b64]])
        #expect(try json(p.encodeCommand(.mark("cp1"), streamSid: "uuid-stream")) as NSDictionary == ["event": "checkpoint", "streamId": "uuid-stream", "name": "cp1"])
        #expect(try json(p.encodeCommand(.clear, streamSid: "uuid-stream")) as NSDictionary == ["event": "clearAudio", "streamId": "uuid-stream"])
    }

    // MARK: Exotel (§2.4)

    @Test func exotelDocumentedMessagesAndPCM() throws {
        let e = MediaStreamDialect.exotel
        #expect(try event(e, #"{"event":"connected"}"#) == .connected(protocol: "Call", version: ""))
        let start = try event(e, #"""
            {"event":"start","sequence_number":"1","stream_sid":"MZ1","start":{"stream_sid":"MZ1","call_sid":"CA1","account_sid":"AC1","from":"+919800000001","to":"+918000000002",
             "custom_parameters":{"k":"v"},"media_format":{"encoding":"audio/x-raw","sample_rate":"8000","bit_rate":"16"}}}
            """#)
        guard case .start(let s) = start else { Issue.record("not a start"); return }
        #expect(s.streamSid == "MZ1" && s.callSid == "CA1" && s.customParameters == ["k": "v", "from": "+919800000001", "to": "+918000000002"])
        // 100 ms of 16-bit PCM (a 1 kHz tone) in, μ-law out (the leg cuts it into five frames).
        let tone = (0..<800).map { Int16(8000 * sin(2 * Double.pi * 1000 * Double($0) / 8000)) }
        let pcm = tone.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] }
        let media = try event(e, #"{"event":"media","sequence_number":"3","stream_sid":"MZ1","media":{"chunk":"2","timestamp":"200","payload":"\#(Data(pcm).base64EncodedString())"}}"#)
        #expect(media == .media(MediaStreamMedia(chunk: 2, timestamp: 200, payload: G711.encode(tone, law: .muLaw))))
        #expect(throws: TwilioMediaStreamCodec.Failure.self) {
            try e.decodeEvent(#"{"event":"media","stream_sid":"MZ1","media":{"payload":"AAEC"}}"#)   // 3 bytes: not 16-bit samples
        }
        #expect(try event(e, #"{"event":"dtmf","sequence_number":"7","stream_sid":"MZ1","dtmf":{"digit":"5","duration":"100"}}"#) == .dtmf(track: "inbound_track", digit: "5"))
        #expect(try event(e, #"{"event":"mark","sequence_number":"15","stream_sid":"MZ1","mark":{"name":"x"}}"#) == .mark("x"))
        // Out: 16-bit little-endian PCM, 320 bytes a 20 ms frame; both spellings of the stream id.
        let frame = G711.encode(Array(tone.prefix(160)), law: .muLaw)
        let out = try json(String(buffer: e.encodeMedia(frame, prefix: e.mediaPrefix(streamSid: "MZ1").utf8)))
        #expect(out["event"] as? String == "media" && out["stream_sid"] as? String == "MZ1" && out["streamSid"] as? String == "MZ1")
        let payload = try #require(Data(base64Encoded: (out["media"] as? [String: Any])?["payload"] as? String ?? ""))
        #expect(payload.count == 320)
        let samples = stride(from: 0, to: payload.count, by: 2).map { Int16(bitPattern: UInt16(payload[$0]) | UInt16(payload[$0 + 1]) << 8) }
        #expect(samples == G711.decode(frame, law: .muLaw))
        #expect(try json(e.encodeCommand(.clear, streamSid: "MZ1")) as NSDictionary == ["event": "clear", "stream_sid": "MZ1", "streamSid": "MZ1"])
    }

    // MARK: Vonage (PROTOCOLS-4.md: binary L16, JSON events)

    @Test func vonageDocumentedMessages() throws {
        let v = MediaStreamDialect.vonage
        // The first message: the format and the NCCO endpoint's headers side by side.
        guard case .start(let start)? = try event(v, #"{"event":"websocket:connected","content-type":"audio/l16;rate=16000","from":"447700900000","to":"447700900001","uuid":"aaaaaaaa-bbbb","app":"demo","attempt":2}"#) else {
            Issue.record("websocket:connected is the stream's start"); return
        }
        #expect(start.sampleRate == 16_000 && start.encoding == "audio/L16" && start.callSid == "aaaaaaaa-bbbb")
        #expect(start.customParameters == ["from": "447700900000", "to": "447700900001", "uuid": "aaaaaaaa-bbbb", "app": "demo", "attempt": "2"])
        guard case .start(let narrow)? = try event(v, #"{"event":"websocket:connected","content-type":"audio/l16;rate=8000"}"#) else { Issue.record("8 kHz"); return }
        #expect(narrow.sampleRate == 8_000 && narrow.customParameters.isEmpty && narrow.streamSid.hasPrefix("VG"))
        #expect(try event(v, #"{"event":"websocket:dtmf","digit":"5","duration":260}"#) == .dtmf(track: "inbound", digit: "5"))
        guard case .acknowledged = try v.decodeEvent(#"{"event":"websocket:cleared"}"#), case .acknowledged = try v.decodeEvent(#"{"event":"websocket:notify","payload":{"name":"m7"}}"#) else {
            Issue.record("cleared and notify are acknowledgements"); return
        }
        // Refused by name: another format or rate, a key that is not one, no format at all.
        for bad in [#"{"event":"websocket:connected","content-type":"audio/l16;rate=24000"}"#, #"{"event":"websocket:connected","content-type":"audio/pcmu"}"#,
                    #"{"event":"websocket:connected"}"#, #"{"event":"websocket:dtmf","digit":"55"}"#, #"{"event":"websocket:dtmf"}"#] {
            #expect(throws: TwilioMediaStreamCodec.Failure.self, "\(bad)") { try v.decodeEvent(bad) }
        }
        // Out: audio is binary (no text message for it), marks are counted by the leg, the clear is Vonage's action.
        #expect(v.encodeCommand(.media(Self.silence), streamSid: "VG1") == nil && v.encodeCommand(.mark("m"), streamSid: "VG1") == nil)
        #expect(try json(v.encodeCommand(.clear, streamSid: "VG1")) as NSDictionary == ["action": "clear"])
        // The call's 8 kHz widened to 16 kHz: twice the samples, every other one the original.
        var widener: VonageDialect.Widener? = VonageDialect.Widener()
        let frame = G711.encode((0..<160).map { Int16(3000 * sin(Double($0) / 3)) }, law: .muLaw)
        let audio = VonageDialect.audio(frame, widener: &widener)
        #expect(audio.readableBytes == 640)
        let samples = PCM16.samples(Array(buffer: audio))
        #expect(stride(from: 1, to: 320, by: 2).map { samples[$0] } == G711.decode(frame, law: .muLaw))
        var narrowWidener: VonageDialect.Widener?
        #expect(VonageDialect.audio(frame, widener: &narrowWidener).readableBytes == 320, "8 kHz: 320 bytes a frame")
    }

    @Test(arguments: MediaStreamDialect.allCases)
    func unknownAndMalformedMessagesAreToldApart(dialect: MediaStreamDialect) {
        guard case .unknownEvent("dance")? = try? dialect.decodeEvent(#"{"event":"dance"}"#) else { Issue.record("\(dialect): unknown event"); return }
        #expect(throws: TwilioMediaStreamCodec.Failure.self) { try dialect.decodeEvent("{not json") }
        #expect(throws: TwilioMediaStreamCodec.Failure.self) { try dialect.decodeEvent(#"{"no":"event"}"#) }
    }
}
