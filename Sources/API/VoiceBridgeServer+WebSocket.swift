import Bridge
import Calls
import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket
import Synchronization

/// The WebSocket side of the server: Twilio media streams and the event stream.
extension VoiceBridgeServer {
    /// The WebSocket routes: `GET /twilio/stream` (a Twilio media stream becomes an inbound call)
    /// and `GET /api/events` (the event stream).
    func webSocketRouter() -> Router<MediaSocketRequestContext> {
        let router = Router(context: MediaSocketRequestContext.self)
        router.ws("twilio/stream") { request, _ in
            do {
                let base = self.publicBase(request).replacingOccurrences(of: "https://", with: "wss://").replacingOccurrences(of: "http://", with: "ws://")
                try self.checkSignature(request, url: base + "/twilio/stream")
            } catch {
                throw HTTPError(.forbidden, message: "invalid X-Twilio-Signature")
            }
            guard self.calls != nil else { return .dontUpgrade }
            return .upgrade([:])
        } onUpgrade: { inbound, outbound, context in
            guard let calls = self.calls else { return }
            let socket = TwilioStreamLeg.Socket(send: self.channelWriter(context.requestContext.channel),
                                                close: { try? await outbound.close(.normalClosure, reason: "call ended") })
            let leg = TwilioStreamLeg(scheduler: calls.scheduler, logger: self.logger, socket: socket)
            try await withThrowingTaskGroup(of: Void.self) { group in
                var messages = inbound.messages(maxSize: 256 * 1024).makeAsyncIterator()
                var answering = false
                do {
                    while let message = try await messages.next() {
                        guard case .text(let text) = message else {
                            self.logger.warning("binary frame on a media stream ignored", metadata: ["stream": "\(leg.streamSid)"])
                            continue
                        }
                        if leg.receive(text) == .stopped { break }
                        if !answering, let start = leg.start {
                            answering = true
                            let caller = start.customParameters["from"].flatMap { $0.isEmpty ? nil : $0 } ?? "unknown"
                            let callee = start.customParameters["to"] ?? ""
                            group.addTask { await calls.manager.answer(stream: leg, caller: caller, callee: callee, externalID: start.callSid) }
                        }
                    }
                } catch {
                    self.logger.warning("media stream closed", metadata: ["stream": "\(leg.streamSid)", "error": "\(error)"])
                }
                leg.finish()
                try await group.waitForAll()
            }
        }
        router.ws("api/events") { request, _ in
            do { _ = try self.access.identity(of: request) } catch { return .dontUpgrade }
            if let since = request.uri.queryParameters.get("since"), Int64(since) == nil { return .dontUpgrade }
            return .upgrade([:])
        } onUpgrade: { inbound, outbound, context in
            let since = context.request.uri.queryParameters.get("since").flatMap { Int64($0) }
            do {
                try await EventStream(store: self.store, logger: self.logger).run(since: since, outbound: outbound, inbound: inbound)
            } catch {
                self.logger.debug("event stream ended", metadata: ["error": "\(error)"])
            }
        }
        return router
    }

    /// Writes a tick's messages as text frames straight into the connection's channel, on its
    /// event loop (the media tick runs on an event loop; for a stream on another one this is one
    /// `execute` per tick, not a task). Hummingbird's writer still owns the close handshake.
    /// Audio is dropped while the socket is not writable — a peer that stopped reading must not
    /// grow the server's memory — and the first drop is logged; marks and clears always go.
    func channelWriter(_ channel: any Channel) -> @Sendable ([TwilioStreamLeg.OutboundMessage]) -> Void {
        let warned = Atomic<Bool>(false)
        return { [logger] messages in
            let write = {
                guard channel.isActive else { return }
                let writable = channel.isWritable
                for message in messages where writable || !message.isMedia {
                    let frame = WebSocketFrame(fin: true, opcode: .text, data: channel.allocator.buffer(string: message.text))
                    channel.write(frame, promise: nil)
                }
                channel.flush()
                if !writable, !warned.exchange(true, ordering: .relaxed) {
                    logger.warning("media stream not reading: dropping outbound audio", metadata: ["remote": "\(channel.remoteAddress.map { "\($0)" } ?? "?")"])
                }
            }
            if channel.eventLoop.inEventLoop { write() } else { channel.eventLoop.execute(write) }
        }
    }
}
