import HummingbirdWSClient
import Logging
import Synchronization

/// Carries a SIP call leg over a real WebSocket to a remote media-stream endpoint, speaking the
/// Twilio dialect as Twilio would: VoiceBridge as a SIP edge in front of another VoiceBridge (or
/// anything that accepts Twilio media streams).
///
/// The leg's events go out as `connected`, `start`, `media`, `dtmf`, `mark`, `stop`; the remote's
/// `media`, `mark` and `clear` come back as commands. When either side ends, the other is ended:
/// the call's end closes the socket, and a closed socket hangs up the call.
public enum MediaStreamRelay {
    public struct Counters: Sendable, Equatable {
        public var sent = 0
        public var received = 0
        public var malformed = 0
        public var unknown = 0
    }

    private final class Tally: Sendable {
        let counts = Mutex(Counters())
        func update(_ body: (inout Counters) -> Void) { counts.withLock { body(&$0) } }
        var value: Counters { counts.withLock { $0 } }
    }

    /// Runs the leg and the socket until either ends. Returns what crossed the socket.
    @discardableResult
    public static func run(leg: SIPCallLeg, url: String, logger: Logger) async throws -> Counters {
        let counters = Tally()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await leg.run() }
            group.addTask {
                try await WebSocketClient.connect(url: url, configuration: .init(maxFrameSize: 1 << 20), logger: logger) { inbound, outbound, _ in
                    try await withThrowingTaskGroup(of: Void.self) { socket in
                        socket.addTask {
                            var sequence = 0
                            try await outbound.write(.text(TwilioMediaStreamCodec.encodeEvent(.connected(protocol: "Call", version: "1.0.0"),
                                                                                                  streamSid: leg.streamSid, sequenceNumber: 0)))
                            for await event in leg.events {
                                sequence += 1
                                try await outbound.write(.text(TwilioMediaStreamCodec.encodeEvent(event, streamSid: leg.streamSid, sequenceNumber: sequence)))
                                counters.update { $0.sent += 1 }
                                if event == .stop { break }
                            }
                            try await outbound.close(.normalClosure, reason: "call ended")
                        }
                        socket.addTask {
                            var messages = inbound.messages(maxSize: 1 << 20).makeAsyncIterator()
                            while let message = try await messages.next() {
                                guard case .text(let text) = message else { counters.update { $0.malformed += 1 }; continue }
                                do {
                                    switch try TwilioMediaStreamCodec.decodeCommand(text) {
                                    case .message(let command, _):
                                        counters.update { $0.received += 1 }
                                        await leg.send(command)
                                    case .unknownEvent(let name):
                                        counters.update { $0.unknown += 1 }
                                        logger.debug("ignored unknown media-stream event", metadata: ["event": "\(name)", "stream": "\(leg.streamSid)"])
                                    }
                                } catch {
                                    counters.update { $0.malformed += 1 }
                                    logger.warning("malformed media-stream message", metadata: ["stream": "\(leg.streamSid)", "error": "\(error)"])
                                }
                            }
                            // The remote closed the stream: the call ends with it.
                            await leg.hangUp()
                        }
                        try await socket.waitForAll()
                    }
                }
                await leg.hangUp()
            }
            try await group.waitForAll()
        }
        return counters.value
    }
}
