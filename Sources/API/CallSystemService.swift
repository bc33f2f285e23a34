import Calls
import Logging
import ServiceLifecycle

/// Runs the call system for the life of the server. On graceful shutdown its tasks are
/// cancelled: live calls get BYE (ringing ones CANCEL), their final states are written, and only
/// then does the store close (it shuts down after this service).
struct CallSystemService: Service {
    let system: CallSystem
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown { await system.run() }
        logger.info("calls ended")
    }
}
