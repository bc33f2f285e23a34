import Foundation
import Logging
import Telemetry
import Testing
import TestSupport
import Tracing

/// The exporter's bound: spans that find its queue full are dropped and counted
/// (`voicebridge_trace_spans_dropped_total`), as are batches the collector does not take
/// (`CallTraceTests.aCollectorThatIsDownCostsTheSpansNotTheCall`).
@Suite struct OTLPTracingTests {
    @Test func spansBeyondTheQueueAreDroppedAndCounted() async throws {
        try #require(OTLPReceiver.isInstalled, "opentelemetry-proto is missing (make deps)")
        let receiver = try await OTLPReceiver()
        defer { receiver.stop() }
        var settings = OTLPTracing.Settings(endpoint: receiver.tracesURL)
        settings.queuedSpans = 10
        settings.exportEvery = .milliseconds(100)
        let dropped = Locked(0)
        let tracing = try OTLPTracing(settings: settings, logger: Logger(label: "otel"), dropped: { n in dropped.withLock { $0 += n } })
        let exporter = Task { try await tracing.service.run() }
        defer { exporter.cancel() }
        for n in 0..<100 { tracing.tracer.startSpan("span \(n)", context: .topLevel).end() }
        // How many make the queue depends on how often it is sent while the 100 go in: 10 alone, 30
        // beside `make test`. Every span is one or the other, sent or counted as dropped — without
        // the count of a full queue's drops, the sum never reaches 100 and this waits out.
        let spans = try await receiver.spans { sent in sent.count + dropped.value == 100 }
        #expect(spans.count < 100 && dropped.value > 0 && spans.count + dropped.value == 100,
                "a queue of 10: \(spans.count) sent, \(dropped.value) counted as dropped")
    }
}
