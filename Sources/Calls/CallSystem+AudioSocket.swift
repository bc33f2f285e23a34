import Bridge
import Foundation
import Logging
import NIOCore
import Pipeline

extension CallSystem {
    /// The AudioSocket listener `audiosocket.listen` asks for, bound (a port that cannot be had is a
    /// startup error); nil when it is off. Each connection paces on its own event loop's media tick.
    static func audioSocket(_ config: VoiceBridgeConfig, schedulers: LoopSchedulers,
                            fallback: PacerScheduler<[UInt8]>, logger: Logger) async throws -> AudioSocketServer? {
        guard let listen = config.audioSocket.listen else { return nil }
        var settings = AudioSocketServer.Settings(host: listen.host, port: listen.port, allows: { [peers = config.audioSocket] in peers.allows($0) })
        settings.mediaTimeout = .seconds(config.sip.mediaTimeoutSeconds)
        settings.startTimeout = .seconds(config.mediaStreams.startTimeoutSeconds)
        do {
            let server = try await AudioSocketServer(settings: settings, scheduler: { scheduler(for: $0, in: schedulers) ?? fallback }, logger: logger)
            logger.info("AudioSocket: listening", metadata: ["address": "\(listen.host):\(server.port)", "allowed": "\(config.audioSocket.allowedPeers)"])
            return server
        } catch {
            throw StartupError(description: "cannot listen for AudioSocket on \(listen.host):\(listen.port): \(error)")
        }
    }
}

extension CallSystem {
    /// An AudioSocket connection's call: inbound, with the inbound profile. AudioSocket carries no
    /// numbers — only the channel's UUID, kept as the call's id — so they come from the UUID's
    /// binding (`POST /api/audiosocket/calls`) when the dialplan made one; without one the caller
    /// is `unknown`, or, with `audiosocket.require_binding`, the connection is closed and nothing
    /// is stored.
    func answer(audioSocket leg: AudioSocketLeg, start: MediaStreamStart) async {
        let binding = UUID(uuidString: start.callSid).flatMap { audioSocketBindings?.take($0) }
        if binding == nil, requireAudioSocketBinding {
            manager.logger.warning("AudioSocket connection refused: its UUID was not announced through POST /api/audiosocket/calls (audiosocket.require_binding)",
                                   metadata: ["uuid": "\(start.callSid)"])
            await leg.hangUp()
            return
        }
        await manager.answer(stream: leg, caller: binding?.caller ?? "unknown", callee: binding?.callee ?? "", externalID: start.callSid)
    }
}
