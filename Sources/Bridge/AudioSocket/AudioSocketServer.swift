import Logging
import NIOCore
import NIOPosix
import Pipeline

/// VoiceBridge as the server Asterisk's AudioSocket connects to (`AudioSocket(uuid,host:port)` in
/// the dialplan, or `chan_audiosocket`): each connection from an allowed peer is an inbound call,
/// answered by `run()`'s `answer` in a task of its own once the peer has sent the call's UUID.
/// A peer not allowed is closed at once; one that sends no UUID within `startTimeout` is closed.
public final class AudioSocketServer: Sendable {
    public struct Settings: Sendable {
        public var host: String
        public var port: Int
        /// Whether a peer at this address may connect (AudioSocket itself carries no credential).
        public var allows: @Sendable (SocketAddress) -> Bool
        /// A peer silent this long is a dead line (`AudioSocketLeg`).
        public var mediaTimeout: Duration = .seconds(30)
        public var startTimeout: Duration = .seconds(10)

        public init(host: String, port: Int, allows: @escaping @Sendable (SocketAddress) -> Bool) {
            self.host = host
            self.port = port
            self.allows = allows
        }
    }

    private let listener: NIOAsyncChannel<AudioSocketLeg?, Never>
    private let settings: Settings
    private let logger: Logger
    /// The port it listens on (the one chosen when `settings.port` was 0).
    public let port: Int

    /// Listens; call `run(answer:)` to take the calls. `scheduler`: the media tick of a connection's event loop.
    public init(settings: Settings, scheduler: @escaping @Sendable (any EventLoop) -> PacerScheduler<[UInt8]>, logger: Logger) async throws {
        self.settings = settings
        self.logger = logger
        listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)   // 20 ms frames must not wait for Nagle
            .bind(host: settings.host, port: settings.port) { channel in
                channel.eventLoop.makeCompletedFuture { () throws -> AudioSocketLeg? in
                    guard let remote = channel.remoteAddress, settings.allows(remote) else {
                        logger.warning("AudioSocket connection refused: the peer is not in audiosocket.allowed_peers",
                                       metadata: ["remote": "\(channel.remoteAddress.map { "\($0)" } ?? "?")"])
                        channel.close(promise: nil)
                        return nil
                    }
                    let leg = AudioSocketLeg(channel: channel, scheduler: scheduler(channel.eventLoop), mediaTimeout: settings.mediaTimeout, logger: logger)
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(AudioSocketDecoder()))
                    try channel.pipeline.syncOperations.addHandler(AudioSocketHandler(leg: leg))
                    return leg
                }
            }
        port = listener.channel.localAddress?.port ?? settings.port
    }

    /// Takes connections until cancelled, each call answered in its own child task; then stops
    /// listening and returns once every call's task is done.
    public func run(answer: @escaping @Sendable (AudioSocketLeg, MediaStreamStart) async -> Void) async {
        do {
            try await listener.executeThenClose { connections in
                await withDiscardingTaskGroup { group in
                    do {
                        for try await leg in connections {
                            guard let leg else { continue }
                            group.addTask { await self.serve(leg, answer: answer) }
                        }
                    } catch is CancellationError {
                        // The server is stopping.
                    } catch {
                        logger.warning("AudioSocket listener stopped", metadata: ["error": "\(error)"])
                    }
                }
            }
        } catch {
            logger.warning("AudioSocket listener could not close", metadata: ["error": "\(error)"])
        }
    }

    /// One connection: its UUID within `startTimeout`, then the call.
    private func serve(_ leg: AudioSocketLeg, answer: @Sendable (AudioSocketLeg, MediaStreamStart) async -> Void) async {
        // The timer ends a leg still without its UUID, which ends the wait for it; a UUID first
        // cancels the timer.
        await withTaskGroup(of: Void.self) { race in
            race.addTask { _ = await leg.waitForStart() }
            race.addTask {
                guard (try? await Task.sleepOnEventLoop(for: self.settings.startTimeout)) != nil, leg.start == nil else { return }
                leg.end(because: "no UUID within \(self.settings.startTimeout)")
            }
            await race.next()
            race.cancelAll()
        }
        guard let start = leg.start else { return }
        await answer(leg, start)
    }
}
