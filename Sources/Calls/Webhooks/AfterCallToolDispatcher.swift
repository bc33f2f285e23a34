import Foundation
import Logging
import Synchronization
import Tools
import Tracing

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
    /// Where the spans of this work go (`telemetry.otlp_endpoint`'s exporter); nil: none are made.
    let tracer: (any Tracer)?
    /// The outbox is nearly always empty (few tools run after the call): read only when worth it.
    private let gate = OutboxReadGate()

    public init(store: CallStore, runner: ToolRunner, settings: WebhookDispatcher.Settings, logger: Logger, tracer: (any Tracer)? = nil) {
        self.store = store
        self.runner = runner
        self.settings = settings
        self.logger = logger
        self.tracer = tracer
    }

    public func run() async {
        await OutboxDrain<(AfterCallToolRun, ToolDefinition)>(concurrency: settings.concurrency, gate: gate).run(
            on: store,
            claim: { try await self.store.claimDueAfterCallTools(limit: $0, lease: self.settings.timeout + 30) },
            earliestDue: { try await self.store.nextAfterCallToolAttempt() },
            failed: { self.logger.warning("could not read the after-call tool outbox", metadata: ["error": "\($0)"]) },
            send: { claimed in
                let (run, tool) = claimed
                await self.store.continuingTrace(ofCall: run.outboundId, tracer: self.tracer, as: "after-call tool \(tool.name)",
                                                 attributes: ["voicebridge.tool.attempt": .int64(Int64(run.attemptCount + 1))]) {
                    await self.attempt(run, tool)
                }
            })
    }

    /// One attempt. Cancelled by shutdown, it stores no attempt and gives its claim back:
    /// the next start sends it again at once.
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
            if Task.isCancelled { return await store.giveBackClaim(in: .afterCallTools, key: run.id, logger: logger) }
            failure = "\(error)"
        }
        let verdict = settings.policy.verdict(attempt: run.attemptCount + 1, status: status, retryAfter: retryAfter)
        do {
            try await store.recordAfterCallToolAttempt(id: run.id, at: started, status: status, error: failure ?? status.flatMap { (200..<300).contains($0) ? nil : "HTTP \($0)" },
                                                       verdict: verdict)
        } catch {
            logger.error("could not store an after-call tool attempt", metadata: ["run": "\(run.id)", "error": "\(error)"])
        }
        if case .retry(let after) = verdict { gate.due(in: after) }   // read the outbox again when the retry falls due
        if verdict != .delivered {
            logger.info("after-call tool attempt failed", metadata: ["call": "\(run.outboundId)", "tool": "\(run.toolName)",
                                                                    "status": "\(status.map(String.init) ?? failure ?? "?")", "verdict": "\(verdict)"])
        }
    }
}
