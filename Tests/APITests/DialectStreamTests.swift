import Bridge
import Calls
import Foundation
import HummingbirdWSClient
import Logging
import NIOCore
import Synchronization
import Testing
import TestSupport

/// Every dialect's stream over the whole server, on its own WebSocket path: a client speaking
/// Telnyx, Plivo, Exotel or Vonage (as the provider would) talks, pauses, and the echo engine's answer comes
/// back in the dialect's 20 ms frames (binary for Vonage); marks go out in the dialect's words and
/// its echoes are taken (Vonage is sent none: the server counts what it played);
/// the call is stored like any other. How soon the dialect's `clear` comes when the caller talks
/// over the answer is `MediaStreamCallTests`' check, in virtual time: here nothing is timed, so
/// the suite runs beside the others.
@Suite(.serialized) struct DialectStreamTests {
    final class Log: Sendable {
        let frameSizes = Mutex<Set<Int>>([])
        let media = Mutex(0)
        let marks = Mutex(0)
    }

    /// Tone 1 s, then silence 1.5 s: the echo plays the tone back.
    @Test(arguments: [MediaStreamDialect.telnyx, .plivo, .exotel, .vonage])
    func aCallInTheDialectIsEchoedAndStored(dialect: MediaStreamDialect) async throws {
        var config = TwilioStreamTests.config()
        config.engine.mode = .echo
        let provider = MediaStreamProvider(dialect: dialect)
        let marked = dialect.encodeCommand(.mark("m"), streamSid: "s") != nil
        let log = Log()
        // Rung by every echoed frame and mark: the client says `stop` once the echo has come back,
        // not at a fixed time (2.5 s of audio sent and then `stop` found no echo yet beside busy
        // loops and four unit tests at once, 4 Dec).
        let (echoes, echoed) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        try await TwilioStreamTests.withLiveServer(config) { port in
            try await WebSocketClient.connect(url: "ws://127.0.0.1:\(port)/\(dialect.path)", logger: Logger(label: "client")) { inbound, outbound, _ in
                try await outbound.write(.text(provider.start))
                try await outbound.write(.text(#"{"event":"dance"}"#))   // unknown: counted, ignored
                try await outbound.write(.text("{not json"))             // malformed: counted, ignored
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for try await message in inbound.messages(maxSize: 1 << 20) {
                            let heard: MediaStreamProvider.Heard = switch message {
                            case .text(let text): provider.read(text)
                            case .binary(let bytes): provider.read(.binary(Array(buffer: bytes)))
                            }
                            switch heard {
                            case .media(let payload):
                                log.frameSizes.withLock { _ = $0.insert(payload.count) }
                                log.media.withLock { $0 += 1 }
                                echoed.yield()
                            case .mark(let name):
                                log.marks.withLock { $0 += 1 }
                                echoed.yield()
                                if let played = provider.played(name) { try await outbound.write(.text(played)) }
                            case .clear, .other:
                                break
                            }
                        }
                    }
                    let start = ContinuousClock.now
                    let perMessage = provider.framesPerMessage
                    for n in stride(from: 0, to: 125, by: perMessage) {
                        let frames = (n..<(n + perMessage)).flatMap { MediaStreamProvider.toneFrame($0, on: n < 50) }
                        switch provider.media(n, frames) {
                        case .text(let text): try await outbound.write(.text(text))
                        case .binary(let bytes): try await outbound.write(.binary(ByteBuffer(bytes: bytes)))
                        }
                        try await Task.sleep(until: start.advanced(by: .milliseconds(20 * (n + perMessage))), clock: .continuous)
                    }
                    // The echo back, then stop (a wait that ends unmet leaves the checks below to say what came).
                    _ = try? await withTimeout(.seconds(20)) {
                        for await _ in echoes where log.media.withLock({ $0 }) > 20 && (log.marks.withLock({ $0 }) > 0 || !marked) { return }
                    }
                    if let stop = provider.stop { try await outbound.write(.text(stop)) }   // Vonage: the socket's close
                    group.cancelAll()
                }
            }
        }
        #expect(log.media.withLock { $0 } > 20, "\(dialect): the echo came back (\(log.media.withLock { $0 }) frames)")
        #expect(log.frameSizes.withLock { $0 } == [provider.frameBytes], "\(dialect): 20 ms frames in the dialect's encoding")
        if marked { #expect(log.marks.withLock { $0 } > 0, "\(dialect): marks in the dialect's words") }

        let store = try CallStore(path: config.database.path)
        let call = try #require(try await store.calls(inStates: CallState.allCases).first)
        #expect(call.direction == .inbound && call.state == .completed, "\(dialect): \(call.state)")
        if provider.carriesNumbers { #expect(call.callerNumber == "+15550001111" && call.calleeNumber == "+15550002222") }
        #expect(try await store.recordingPath(callID: call.outboundId) != nil)
    }
}
