import Foundation
import Logging
import Tools

/// Runs the `on_end` tools of ended calls for the life of the server: claims due runs, sends each
/// tool its call's result (the webhook's body) with its headers and secrets through the egress
/// client, and stores every attempt's verdict from the webhooks' retry policy — a 2xx is done; no
/// answer, a timeout, 408, 429 and 5xx are tried again on the schedule; any other answer is the
/// tool's refusal. Like `WebhookDispatcher` it keeps nothing that is not in the database.
public final class AfterCallToolDispatcher: Sendable {
    let store: CallStore
    let runner: ToolRunner
    let transport: any ToolTransport
    let settings: WebhookDispatcher.Settings
    let logger: Logger

    public init(store: CallStore, runner: ToolRunner, transport: any ToolTransport, settings: WebhookDispatcher.Settings, logger: Logger) {
        self.store = store
        self.runner = runner
        self.transport = transport
        self.settings = settings
        self.logger = logger
    }

    public func run() async {
        await OutboxDrain<(AfterCallToolRun, ToolDefinition)>(concurrency: settings.concurrency, pollInterval: settings.pollInterval).run(claim: { limit in
            do { return try await self.store.claimDueAfterCallTools(limit: limit, lease: self.settings.timeout + 30) } catch {
                self.logger.warning("could not read the after-call tool outbox", metadata: ["error": "\(error)"])
                return []
            }
        }, send: { await self.attempt($0.0, $0.1) })
    }

    /// One attempt. Cancelled by shutdown, it stores nothing: the lease runs out and the next start sends it again.
    func attempt(_ run: AfterCallToolRun, _ tool: ToolDefinition) async {
        let started = Date()
        var status: Int?, retryAfter: String?, failure: String?
        do {
            let body = try JSONValue.parse(run.payload)
            let response = try await transport.send(try runner.request(for: tool, arguments: body),
                                                    timeout: .milliseconds(tool.timeoutMilliseconds), bodyLimit: ToolDefinition.answerLimit)
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
        if verdict != .delivered {
            logger.info("after-call tool attempt failed", metadata: ["call": "\(run.outboundId)", "tool": "\(run.toolName)",
                                                                    "status": "\(status.map(String.init) ?? failure ?? "?")", "verdict": "\(verdict)"])
        }
    }
}
