import Bridge
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

extension CallManager {
    /// An AudioSocket connection's call: inbound, with the inbound profile. AudioSocket carries no
    /// numbers — only the channel's UUID, kept as the call's id — so the caller is `unknown`.
    public func answer(audioSocket leg: AudioSocketLeg, start: MediaStreamStart) async {
        await answer(stream: leg, caller: "unknown", callee: "", externalID: start.callSid)
    }
}
