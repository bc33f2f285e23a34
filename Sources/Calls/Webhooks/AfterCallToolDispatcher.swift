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
    let transport: any ToolTransport
    let settings: WebhookDispatcher.Settings
    let logger: Logger
    private let inFlight = Atomic<Int>(0)

    public init(store: CallStore, runner: ToolRunner, transport: any ToolTransport, settings: WebhookDispatcher.Settings, logger: Logger) {
        self.store = store
        self.runner = runner
        self.transport = transport
        self.settings = settings
        self.logger = logger
    }

    public func run() async {
        await withDiscardingTaskGroup { group in
            while !Task.isCancelled {
                let free = settings.concurrency - inFlight.load(ordering: .relaxed)
                var due: [(AfterCallToolRun, ToolDefinition)] = []
                if free > 0 {
                    do { due = try await store.claimDueAfterCallTools(limit: free, lease: settings.timeout + 30) } catch {
                        logger.warning("could not read the after-call tool outbox", metadata: ["error": "\(error)"])
                    }
                }
                for (run, tool) in due {
                    inFlight.add(1, ordering: .relaxed)
                    group.addTask {
                        await self.attempt(run, tool)
                        self.inFlight.subtract(1, ordering: .relaxed)
                    }
                }
                if due.isEmpty { try? await Task.sleep(for: .seconds(settings.pollInterval)) }
            }
        }
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
