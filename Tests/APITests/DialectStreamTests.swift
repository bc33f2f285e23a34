import Bridge
import Calls
import Foundation
import HummingbirdWSClient
import Logging
import Pipeline
import Synchronization
import Testing
import TestLanes
import TestSupport

/// Every dialect runs the same call session through the whole server: a client speaking Telnyx,
/// Plivo or Exotel (as the provider would) talks, the echo engine answers, the caller talks over
/// the answer and gets that dialect's clear; marks go out in the dialect's words and its echoes
/// are taken; the call is stored like any other.
@Suite(.serialized, .tags(.timed)) struct DialectStreamTests {
    /// What a provider of `dialect` sends, and how it reads what it gets.
    struct Provider {
        let dialect: MediaStreamDialect
        let sid = "stream-1"

        var start: String {
            switch dialect {
            case .twilio: TwilioStreamEdgeTests.startMessage(sid, callSid: "CA1")
            case .telnyx: #"{"event":"start","sequence_number":"1","start":{"call_control_id":"v3:c1","media_format":{"encoding":"PCMU","sample_rate":8000,"channels":1}},"stream_id":"\#(sid)"}"#
            case .plivo: #"{"event":"start","sequenceNumber":1,"start":{"callId":"c1","streamId":"\#(sid)","accountId":"MA1","tracks":["inbound"],"mediaFormat":{"encoding":"audio/x-mulaw","sampleRate":8000}},"extra_headers":"from=+15550001111;to=+15550002222"}"#
            case .exotel: #"{"event":"start","sequence_number":"1","stream_sid":"\#(sid)","start":{"stream_sid":"\#(sid)","call_sid":"c1","account_sid":"a1","from":"+15550001111","to":"+15550002222","custom_parameters":{},"media_format":{"encoding":"audio/x-raw","sample_rate":"8000","bit_rate":"16"}}}"#
            case .browser: ""   // not a provider: DashboardTryTests
            }
        }

        /// `frames` 20 ms μ-law frames as one message (Exotel sends 16-bit PCM, ~100 ms at a time).
        func media(_ n: Int, _ frames: [UInt8]) -> String {
            switch dialect {
            case .twilio: return TwilioStreamEdgeTests.mediaMessage(sid, n, frames)
            case .telnyx: return #"{"event":"media","sequence_number":"\#(n + 2)","media":{"track":"inbound","chunk":"\#(n)","timestamp":"\#(n * 20)","payload":"\#(Data(frames).base64EncodedString())"},"stream_id":"\#(sid)"}"#
            case .plivo: return #"{"event":"media","sequenceNumber":\#(n + 2),"streamId":"\#(sid)","media":{"track":"inbound","timestamp":"\#(1_705_312_200_000 + n * 20)","chunk":\#(n),"payload":"\#(Data(frames).base64EncodedString())"}}"#
            case .exotel:
                let pcm = G711.decode(frames, law: .muLaw).flatMap { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] }
                return #"{"event":"media","sequence_number":"\#(n + 2)","stream_sid":"\#(sid)","media":{"chunk":"\#(n)","timestamp":"\#(n * 20)","payload":"\#(Data(pcm).base64EncodedString())"}}"#
            case .browser: return ""
            }
        }

        var stop: String {
            switch dialect {
            case .twilio: #"{"event":"stop","streamSid":"\#(sid)"}"#
            case .telnyx: #"{"event":"stop","stop":{"call_control_id":"v3:c1"},"stream_id":"\#(sid)"}"#
            case .plivo: #"{"event":"stop","streamId":"\#(sid)"}"#
            case .exotel: #"{"event":"stop","stream_sid":"\#(sid)"}"#
            case .browser: ""
            }
        }

        enum Heard: Equatable { case media(bytes: Int), mark(String), clear, other }

        func read(_ object: [String: Any]) -> Heard {
            let event = object["event"] as? String
            switch (dialect, event) {
            case (.plivo, "playAudio"), (_, "media"):
                let payload = (object["media"] as? [String: Any])?["payload"] as? String ?? ""
                return .media(bytes: Data(base64Encoded: payload)?.count ?? -1)
            case (.plivo, "checkpoint"): return .mark(object["name"] as? String ?? "")
            case (.plivo, "clearAudio"), (.twilio, "clear"), (.telnyx, "clear"), (.exotel, "clear"): return .clear
            case (_, "mark"): return .mark((object["mark"] as? [String: Any])?["name"] as? String ?? "")
            default: return .other
            }
        }

        /// The provider's word that the audio before `name` has played.
        func played(_ name: String) -> String {
            switch dialect {
            case .plivo: #"{"event":"playedStream","streamId":"\#(sid)","name":"\#(name)"}"#
            case .telnyx: #"{"event":"mark","stream_id":"\#(sid)","mark":{"name":"\#(name)"}}"#
            case .exotel: #"{"event":"mark","stream_sid":"\#(sid)","mark":{"name":"\#(name)"}}"#
            case .twilio: #"{"event":"mark","streamSid":"\#(sid)","mark":{"name":"\#(name)"}}"#
            case .browser: ""
            }
        }
    }

    final class Log: Sendable {
        let cleared = Mutex<ContinuousClock.Instant?>(nil)
        let talkingFrom = Mutex<ContinuousClock.Instant?>(nil)
        let mediaBeforeClear = Mutex(0)
        let mediaAfterClear = Mutex(0)
        let frameSizes = Mutex<Set<Int>>([])
        let marks = Mutex(0)
    }

    /// Tone 3 s, silence 1.5 s (the echo plays it back), tone 2 s over the echo: the dialect's clear.
    @Test(arguments: [MediaStreamDialect.telnyx, .plivo, .exotel])
    func aCallInTheDialectBargesInWithItsClear(dialect: MediaStreamDialect) async throws {
        var config = TwilioStreamTests.config()
        config.engine.mode = .echo
        let provider = Provider(dialect: dialect)
        let log = Log()
        try await TwilioStreamTests.withLiveServer(config) { port in
            try await WebSocketClient.connect(url: "ws://127.0.0.1:\(port)/\(dialect.path)", logger: Logger(label: "client")) { inbound, outbound, _ in
                try await outbound.write(.text(provider.start))
                try await outbound.write(.text(#"{"event":"dance"}"#))   // unknown: counted, ignored
                try await outbound.write(.text("{not json"))             // malformed: counted, ignored
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for try await message in inbound.messages(maxSize: 1 << 20) {
                            guard case .text(let text) = message, let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else { continue }
                            switch provider.read(object) {
                            case .media(let bytes):
                                log.frameSizes.withLock { _ = $0.insert(bytes) }
                                if log.cleared.withLock({ $0 }) != nil { log.mediaAfterClear.withLock { $0 += 1 } } else { log.mediaBeforeClear.withLock { $0 += 1 } }
                            case .mark(let name):
                                log.marks.withLock { $0 += 1 }
                                try await outbound.write(.text(provider.played(name)))
                            case .clear:
                                log.cleared.withLock { $0 = $0 ?? .now }
                            case .other:
                                break
                            }
                        }
                    }
                    let start = ContinuousClock.now
                    let perMessage = dialect == .exotel ? 5 : 1
                    for n in stride(from: 0, to: 325, by: perMessage) {
                        let talking = n < 150 || n >= 225
                        if n == 225 { log.talkingFrom.withLock { $0 = .now } }
                        let frames = (n..<(n + perMessage)).flatMap { TwilioStreamEdgeTests.toneFrame($0, on: talking) }
                        try await outbound.write(.text(provider.media(n, frames)))
                        try await Task.sleep(until: start.advanced(by: .milliseconds(20 * (n + perMessage))), clock: .continuous)
                    }
                    try await outbound.write(.text(provider.stop))
                    try await Task.sleep(for: .milliseconds(200))
                    group.cancelAll()
                }
            }
        }
        let clearAt = try #require(log.cleared.withLock { $0 }, "\(dialect): the server sent the dialect's clear")
        let talkingFrom = try #require(log.talkingFrom.withLock { $0 })
        #expect(talkingFrom.duration(to: clearAt) < .milliseconds(300), "\(dialect): clear came \(talkingFrom.duration(to: clearAt)) after the caller started talking")
        #expect(log.mediaBeforeClear.withLock { $0 } > 20, "\(dialect): the echo played before the clear")
        #expect(log.mediaAfterClear.withLock { $0 } < 10, "\(dialect): the rest of the echo was dropped")
        #expect(log.frameSizes.withLock { $0 } == [dialect == .exotel ? 320 : 160], "\(dialect): 20 ms frames in the dialect's encoding")
        #expect(log.marks.withLock { $0 } > 0, "\(dialect): marks in the dialect's words")

        let store = try CallStore(path: config.database.path)
        let call = try #require(try await store.calls(inStates: CallState.allCases).first)
        #expect(call.direction == .inbound && call.state == .completed, "\(dialect): \(call.state)")
        if dialect != .telnyx { #expect(call.callerNumber == "+15550001111" && call.calleeNumber == "+15550002222") }
        #expect(try await store.recordingPath(callID: call.outboundId) != nil)
    }
}
