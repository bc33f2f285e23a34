import Bridge
import Calls
import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket
import Synchronization

/// A media stream (any dialect) on its WebSocket: the frames' way in and out of the call, kept on the
/// connection's event loop where the per-frame work is (see `MediaFrameReader` and
/// `channelWriter`); the async side only answers the call and watches the socket.
extension VoiceBridgeServer {
    /// Who opened a media stream.
    enum StreamOpener: Sendable {
        /// A provider; `signed`: Twilio signed the upgrade — only then may the stream name the
        /// outbound call it carries.
        case provider(signed: Bool)
        /// The dashboard's "Try it", with an API token (`identity`, as `APIAccess` gives it).
        case browser(identity: String)
    }

    func serveMediaStream(dialect: MediaStreamDialect, opener: StreamOpener, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, channel: any Channel, calls: CallSystem) async {
        let socket = MediaStreamSocketLeg.Socket(send: channelWriter(channel), close: { try? await outbound.close(.normalClosure, reason: "call ended") })
        let leg = MediaStreamSocketLeg(dialect: dialect, scheduler: calls.scheduler(for: channel.eventLoop), logger: logger, socket: socket)
        let reader: NIOLoopBound<MediaFrameReader>
        let token: ByteBuffer
        do {
            (reader, token) = try await channel.eventLoop.submit {
                let reader = MediaFrameReader(leg: leg)
                let after = try WebSocketFrameProgress.insertionPoint(in: channel.pipeline.syncOperations)
                try channel.pipeline.syncOperations.addHandler(reader, position: .after(after))
                return (NIOLoopBound(reader, eventLoop: channel.eventLoop), reader.token)
            }.get()
        } catch {
            logger.warning("media stream closed before it started", metadata: ["error": "\(error)"])
            return
        }

        enum Ended { case call, socket, startWatch }
        await withTaskGroup(of: Ended.self) { group in
            // The call: answered once `start` has come, over when the session ends.
            group.addTask {
                guard let start = await leg.waitForStart() else { return .call }
                if case .browser(let identity) = opener {
                    await self.answerBrowser(start, leg: leg, identity: identity, outbound: outbound, manager: calls.manager)
                    return .call
                }
                if case .provider(signed: true) = opener, let outbound = start.customParameters["outbound_id"] {
                    // A call we placed through Twilio: its stream is that call's leg.
                    if await !calls.manager.answerOutbound(stream: leg, outboundID: outbound) {
                        self.logger.warning("a media stream for a call that is not waiting for one", metadata: ["call": "\(outbound)"])
                        await leg.hangUp()
                    }
                    return .call
                }
                await calls.manager.answer(stream: leg, start: start)
                return .call
            }
            // The socket: frames queued before the reader was added, then whatever the reader passes
            // on (binary, fragmented messages); its end is the end of the stream.
            group.addTask {
                do {
                    for try await message in inbound.messages(maxSize: 256 * 1024) {
                        switch message {
                        case .binary(let data) where data == token:
                            channel.eventLoop.execute { reader.value.release() }
                        case .binary(let data) where dialect.carriesBinaryAudio:
                            leg.receive(audio: data)   // before the reader took over, or fragmented
                        case .binary:
                            self.logger.warning("binary frame on a media stream ignored", metadata: ["stream": "\(leg.streamSid)"])
                        case .text(let text):
                            if leg.receive(text) == .stopped { return .socket }
                        }
                    }
                } catch {
                    self.logger.warning("media stream closed", metadata: ["stream": "\(leg.streamSid)", "error": "\(error)"])
                }
                return .socket
            }
            // No `start` within media_streams.start_timeout_seconds: the socket is closed. Its own
            // task, woken by the start, the stream's end or the timer — never the call task, which
            // must not be cancelled mid-write. Hanging up ends the stream, which ends the wait.
            group.addTask {
                await withTaskGroup(of: Void.self) { watch in
                    watch.addTask { _ = await leg.waitForStart() }
                    watch.addTask {
                        try? await Task.sleepOnEventLoop(for: .seconds(self.config.mediaStreams.startTimeoutSeconds))
                        guard !Task.isCancelled, leg.start == nil, !leg.isFinished else { return }
                        self.logger.info("media stream closed: no start", metadata: ["dialect": "\(dialect.rawValue)", "seconds": "\(self.config.mediaStreams.startTimeoutSeconds)"])
                        await leg.hangUp()
                    }
                    await watch.next()
                    watch.cancelAll()
                }
                return .startWatch
            }
            // Whichever of the call and the socket ends first ends the stream; the call task is
            // always waited for (it writes the call's end), the socket's reader is not needed once
            // the call is over.
            var first = await group.next()
            while first == .startWatch { first = await group.next() }
            leg.finish()
            if first == .call { group.cancelAll() }
            await group.waitForAll()
        }
    }

    /// Writes a tick's messages as text (or binary) frames straight into the connection's channel, on its
    /// event loop (the media tick runs on an event loop; for a stream on another one this is one
    /// `execute` per tick, not a task). Hummingbird's writer still owns the close handshake.
    /// Audio is dropped while the socket is not writable — a peer that stopped reading must not
    /// grow the server's memory — and the first drop is logged; marks and clears always go.
    func channelWriter(_ channel: any Channel) -> @Sendable ([MediaStreamSocketLeg.OutboundMessage]) -> Void {
        let warned = Atomic<Bool>(false)
        return { [logger] messages in
            let write: @Sendable () -> Void = {
                guard channel.isActive else { return }
                let writable = channel.isWritable
                for message in messages where writable || !message.isMedia {
                    let frame = WebSocketFrame(fin: true, opcode: message.isBinary ? .binary : .text, data: message.text)
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

    /// A browser's `start`: the call it describes (as `POST /api/outbound` takes one), answered by
    /// the agent; the page hears `{"event":"call","call_id":…}` or `{"event":"error","message":…}`.
    private func answerBrowser(_ start: MediaStreamStart, leg: MediaStreamSocketLeg, identity: String, outbound: WebSocketOutboundWriter, manager: CallManager) async {
        let requestedBy = "dashboard (\(APIAccess.label(identity)))"
        do {
            try await limiter.admit(identity)   // a browser call is a call created, like POST /api/outbound
        } catch {
            try? await outbound.write(.text(BrowserDialect.errorMessage((error as? HTTPError)?.body ?? "\(error)")))
            await leg.hangUp()
            return
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let body: CreateCallBody
        do {
            body = try decoder.decode(CreateCallBody.self, from: Data((start.customParameters["call"] ?? "").utf8))
        } catch {
            try? await outbound.write(.text(BrowserDialect.errorMessage("start.call is not a call: \(error)")))
            await leg.hangUp()
            return
        }
        await manager.answerBrowser(stream: leg, request: body.request, requestedBy: requestedBy) { result in
            switch result {
            case .success(let id):
                self.logger.info("browser call answered", metadata: ["call": "\(id)", "by": "\(requestedBy)"])
                try? await outbound.write(.text(BrowserDialect.callMessage(id: id)))
            case .failure(let error):   // a ValidationError names each field
                try? await outbound.write(.text(BrowserDialect.errorMessage("\(error)")))
            }
        }
    }
}
