import Analysis
import AsyncHTTPClient
import Egress
import Foundation
import Logging
import NIOCore
import Tools
import Tracing

/// Runs the post-call analyses of completed calls for the life of the server: claims due jobs,
/// asks the configured model for a structured analysis (through the egress client) or, without
/// one, analyses offline, and stores the analysis with its `call.analyzed` webhook. A failed
/// request is retried on a short schedule; when the schedule runs out (or the model refuses) the
/// offline analysis is stored instead, saying why the model's is not. Like the other outboxes it
/// keeps nothing that is not in the database.
public final class CallAnalysisDispatcher: Sendable {
    public struct Settings: Sendable {
        public var endpoint: (url: String, key: String, model: String)?
        public var timeout: TimeAmount
        public var egress: EgressPolicy
        /// Delays before the 2nd, 3rd, … request: after the last the offline analysis is stored.
        public var policy = WebhookRetryPolicy(schedule: [5, 30, 300, 1800])
        public var concurrency = 2

        public init(_ config: VoiceBridgeConfig.Analysis, egress: EgressPolicy) {
            endpoint = config.endpoint
            timeout = .seconds(Int64(config.timeoutSeconds))
            self.egress = egress
        }
    }

    let store: CallStore
    let settings: Settings
    let logger: Logger
    /// Where the spans of this work go (`telemetry.otlp_endpoint`'s exporter); nil: none are made.
    let tracer: (any Tracer)?
    private let gate = OutboxReadGate()

    public init(store: CallStore, settings: Settings, logger: Logger, tracer: (any Tracer)? = nil) {
        self.store = store
        self.settings = settings
        self.logger = logger
        self.tracer = tracer
    }

    public func run() async {
        let lease = Double(settings.timeout.nanoseconds) / 1e9 + 30
        await OutboxDrain<CallAnalysisJob>(concurrency: settings.concurrency, gate: gate).run(
            on: store,
            claim: { try await self.store.claimDueAnalyses(limit: $0, lease: lease) },
            earliestDue: { try await self.store.nextAnalysisAttempt() },
            failed: { self.logger.warning("could not read the analysis outbox", metadata: ["error": "\($0)"]) },
            send: { job in
                await self.store.continuingTrace(ofCall: job.outboundId, tracer: self.tracer, as: "call analysis",
                                                 attributes: ["voicebridge.analysis.attempt": .int64(Int64(job.attemptCount + 1))]) { await self.attempt(job) }
            })
    }

    /// One attempt. Cancelled by shutdown, it stores no attempt and gives its claim back:
    /// the next start runs it again at once.
    func attempt(_ job: CallAnalysisJob) async {
        let started = Date()
        do {
            guard let (spec, input) = try await store.analysisInput(callID: job.outboundId) else {
                try await store.finishAnalysisAttempt(job, at: started, status: nil, error: "the call or its template is gone",
                                                      verdict: .giveUp(reason: "nothing to analyse"), analysis: nil)
                return
            }
            guard let endpoint = settings.endpoint else {
                try await store.finishAnalysisAttempt(job, at: started, status: nil, error: nil, verdict: .delivered, analysis: OfflineAnalyzer.analyze(spec, input))
                return
            }
            var status: Int?, failure: String?, analysis: CallAnalysis?
            do {
                (status, analysis) = try await ask(endpoint, spec, input)
                if analysis == nil { failure = "the model answered \(status.map(String.init) ?? "nothing")" }
            } catch let error as AnalysisRequest.Failure {
                failure = Self.malformed + error.description   // an answer that did not fit: asked once more
            } catch {
                if Task.isCancelled { return await store.giveBackClaim(in: .analyses, key: job.outboundId, logger: logger) }
                failure = "\(error)"
            }
            // An answer that did not fit (ask threw: no status) is retried like no answer at all.
            var verdict: WebhookRetryPolicy.Verdict = analysis != nil ? .delivered : settings.policy.verdict(attempt: job.attemptCount + 1, status: status)
            if failure?.hasPrefix(Self.malformed) == true, job.lastError?.hasPrefix(Self.malformed) == true {
                verdict = .giveUp(reason: "the model's answer did not fit twice")
            }
            switch verdict {
            case .delivered:
                try await store.finishAnalysisAttempt(job, at: started, status: status, error: nil, verdict: verdict, analysis: analysis)
            case .retry(let after):
                try await store.finishAnalysisAttempt(job, at: started, status: status, error: failure, verdict: verdict, analysis: nil)
                gate.due(in: after)
                logger.info("post-call analysis attempt failed; retried", metadata: ["call": "\(job.outboundId)", "error": "\(failure ?? "?")"])
            case .giveUp, .disableEndpoint:
                var offline = OfflineAnalyzer.analyze(spec, input)
                offline.llmError = failure
                try await store.finishAnalysisAttempt(job, at: started, status: status, error: failure, verdict: verdict, analysis: offline)
                logger.warning("post-call analysis: the model failed; the offline analysis is stored", metadata: ["call": "\(job.outboundId)", "error": "\(failure ?? "?")"])
            }
        } catch {
            logger.error("could not store a post-call analysis", metadata: ["call": "\(job.outboundId)", "error": "\(error)"])
        }
    }

    /// How an attempt whose answer did not fit its schema is written down: such an answer is asked
    /// for once more, then given up on (the offline analysis is stored with the error).
    static let malformed = "malformed analysis: "

    /// The model's status and, on a 2xx, its checked analysis.
    func ask(_ endpoint: (url: String, key: String, model: String), _ spec: AnalysisSpec, _ input: AnalysisInput) async throws -> (Int, CallAnalysis?) {
        let response = try await EgressHTTPClient(policy: settings.egress)
            .chatCompletion(endpoint, body: AnalysisRequest.body(spec, input, model: endpoint.model), timeout: settings.timeout)
        guard (200..<300).contains(response.status) else { return (response.status, nil) }
        let answer = try JSONValue.parse(String(buffer: response.body))
        return (response.status, try AnalysisRequest.analysis(from: answer, spec, input))
    }
}
