import Foundation
import Logging
import Synchronization
import Tools

/// Runs the `on_end` tools of ended calls for the life of the server: claims due runs, sends each
/// tool its call's result (the webhook's body) with its headers and secrets through the egress
/// client, and stores every attempt's verdict from the webhooks' retry policy — a 2xx is done; no
/// answer, a timeout, 408, 429 and 5xx are tried again on the schedule; any other answer is the
/// tool's refusal. Like `WebhookDispatcher` it keeps nothing that is not in the database.
public final class AfterCallToolDispatcher: Sendable {
    let store: CallStore
    let runner: ToolRunner
    let settings: WebhookDispatcher.Settings
    let logger: Logger
    /// When the outbox is next read if this process writes nothing to it meanwhile (see `claim`).
    private let nextRead = Mutex<(written: Int, at: ContinuousClock.Instant)>((-1, .now))
    /// The longest the outbox goes unread: rows other nodes wrote, or left by a restart.
    static let idleReadInterval: Duration = .seconds(30)

    public init(store: CallStore, runner: ToolRunner, settings: WebhookDispatcher.Settings, logger: Logger) {
        self.store = store
        self.runner = runner
        self.settings = settings
        self.logger = logger
    }

    public func run() async {
        await OutboxDrain<(AfterCallToolRun, ToolDefinition)>(concurrency: settings.concurrency, pollInterval: settings.pollInterval)
            .run(claim: { await self.claim(limit: $0) }, send: { await self.attempt($0.0, $0.1) })
    }

    /// The outbox is nearly always empty (few tools run after the call), so it is not read on every
    /// poll: only once this process wrote a row since the last read, when the earliest pending run
    /// falls due, or every `idleReadInterval` at the latest. A server without such tools reads it
    /// twice a minute.
    func claim(limit: Int) async -> [(AfterCallToolRun, ToolDefinition)] {
        let written = store.afterCallToolsWritten.load(ordering: .relaxed)
        let now = ContinuousClock.now
        guard nextRead.withLock({ $0.written != written || now >= $0.at }) else { return [] }
        do {
            let claimed = try await store.claimDueAfterCallTools(limit: limit, lease: settings.timeout + 30)
            var at = now   // work is flowing: read again at the next poll
            if claimed.isEmpty {
                let due = try await store.nextAfterCallToolAttempt().map { Duration.seconds(max(0, $0.timeIntervalSinceNow)) }
                at = now.advanced(by: min(due ?? Self.idleReadInterval, Self.idleReadInterval))
            }
            nextRead.withLock { $0 = (written, at) }
            return claimed
        } catch {
            logger.warning("could not read the after-call tool outbox", metadata: ["error": "\(error)"])
            return []
        }
    }

    /// One attempt. Cancelled by shutdown, it stores nothing: the lease runs out and the next start sends it again.
    func attempt(_ run: AfterCallToolRun, _ tool: ToolDefinition) async {
        let started = Date()
        var status: Int?, retryAfter: String?, failure: String?
        do {
            let response = try await runner.send(tool, body: try JSONValue.parse(run.payload))
            status = response.status
            retryAfter = response.headers["retry-after"]
        } catch let missing as SecretReference.Missing {
            failure = missing.description   // retried: the operator may configure it
        } catch {
            if Task.isCancelled { return }
            failure = "\(error)"
        }
        let verdict = settings.policy.verdict(attempt: run.attemptCount + 1, status: status, retryAfter: retryAfter)
        do {
            try await store.recordAfterCallToolAttempt(id: run.id, at: started, status: status, error: failure ?? status.flatMap { (200..<300).contains($0) ? nil : "HTTP \($0)" },
                                                       verdict: verdict)
        } catch {
            logger.error("could not store an after-call tool attempt", metadata: ["run": "\(run.id)", "error": "\(error)"])
        }
        if case .retry(let after) = verdict {   // read the outbox again when the retry falls due
            let due = ContinuousClock.now.advanced(by: .seconds(after))
            nextRead.withLock { $0.at = min($0.at, due) }
        }
        if verdict != .delivered {
            logger.info("after-call tool attempt failed", metadata: ["call": "\(run.outboundId)", "tool": "\(run.toolName)",
                                                                    "status": "\(status.map(String.init) ?? failure ?? "?")", "verdict": "\(verdict)"])
        }
    }
}
