import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Pipeline

/// `make bench`'s `campaigns` suite: a 10,000-contact campaign through `voicebridge serve`'s REST
/// API against the built-in simulated callee, every call short-circuited (the callee never answers
/// and the ring timeout is 1 s), so what is measured is the campaign machinery: the upload and its
/// validation, dial pacing against the configured rate, the claim transaction's latency (from the
/// server's own `/metrics` histogram), the concurrency limits (asserted), and the streamed export.
enum CampaignBenchmark {
    struct Figures {
        var contacts: Int
        var uploadSeconds: Double
        var configuredPerMinute: Int
        var measuredPerMinute: Double
        var measuredSeconds: Double
        var mostLive: Int
        var limit: Int
        /// Upper bound of the histogram bucket holding the 99th percentile, in milliseconds.
        var claimP99Milliseconds: Double
        var claims: Int
        var exportSeconds: Double
        var exportRows: Int
    }

    static func run(serverBinary: String, contacts: Int = 10_000, perMinute: Int = 600, concurrent: Int = 20, seconds: Double = 60) async throws -> Figures {
        let server = try await ServerProcess.start(binary: serverBinary, environment: [
            "VOICEBRIDGE_ENGINE_MODE": "echo",
            "VOICEBRIDGE_OUTBOUND_MAX_CONCURRENT_CALLS": "\(concurrent * 2)",
            "VOICEBRIDGE_OUTBOUND_RING_TIMEOUT": "1",
        ])
        defer { server.stop() }
        let base = "http://127.0.0.1:\(server.httpPort)/api"
        _ = try await PersonaBenchmark.json(post: "\(base)/templates", body: ["name": "bench", "purpose": "a visit for {name}", "questions": ["Is {name} home?"]])
        let campaign = try await PersonaBenchmark.json(post: "\(base)/campaigns", body: [
            "name": "bench", "template": "bench", "caller_number": "0701234567", "calls_per_minute": perMinute,
            "max_concurrent_calls": concurrent, "retry": ["on": [String](), "max_retries": 0, "delay_seconds": 0],
        ])
        guard let id = campaign["id"] as? String else { throw BenchError("creating the campaign failed: \(campaign)") }

        // Upload and validation: one POST of the whole list, answered with the row report.
        var csv = "name,phone,simulated_answers\n"
        for i in 0..<contacts { csv += "Contact \(i),010\(String(format: "%08d", 10_000_000 + i)),<no_answer>\n" }
        let clock = ContinuousClock()
        var uploaded: [String: Any] = [:]
        let upload = try await clock.measure {
            uploaded = try await send("\(base)/campaigns/\(id)/contacts", method: .POST, body: Data(csv.utf8), contentType: "text/csv")
        }
        guard uploaded["accepted"] as? Int == contacts else { throw BenchError("the upload took \(uploaded["accepted"] ?? 0) of \(contacts) contacts: \(uploaded)") }

        // Pacing: calls created per minute over `seconds`, after a few seconds of warm-up; the
        // campaign's live calls sampled every 100 ms must never exceed its limit.
        _ = try await send("\(base)/campaigns/\(id)/start", method: .POST)
        var mostLive = 0
        func sample() async throws -> Int {
            let progress = try await PersonaBenchmark.json(get: "\(base)/campaigns/\(id)")["progress"] as? [String: Any] ?? [:]
            let calls = progress["calls"] as? [String: Int] ?? [:]
            let live = ["dialing", "ringing", "connected"].reduce(0) { $0 + (calls[$1] ?? 0) }
            mostLive = max(mostLive, live)
            guard live <= concurrent else { throw BenchError("\(live) calls of the campaign live at once; its limit is \(concurrent)") }
            return calls.values.reduce(0, +)
        }
        let warmUp = clock.now.advanced(by: .seconds(5))
        while clock.now < warmUp { _ = try await sample(); try await Task.sleep(for: .milliseconds(100)) }
        let first = try await sample(), firstAt = clock.now
        let end = firstAt.advanced(by: .seconds(seconds))
        while clock.now < end { _ = try await sample(); try await Task.sleep(for: .milliseconds(100)) }
        let last = try await sample()
        let measured = firstAt.duration(to: clock.now).totalSeconds
        _ = try await send("\(base)/campaigns/\(id)/cancel", method: .POST)

        // Export of every contact, streamed.
        var rows = 0
        let export = try await clock.measure {
            let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: "\(base)/campaigns/\(id)/results.csv"), timeout: .seconds(300))
            for try await chunk in response.body { rows += chunk.readableBytesView.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) } }
        }
        let (p99, claims) = try await claimPercentile(metricsURL: "http://127.0.0.1:\(server.httpPort)/metrics")
        return Figures(contacts: contacts, uploadSeconds: upload.totalSeconds, configuredPerMinute: perMinute,
                       measuredPerMinute: Double(last - first) * 60 / measured, measuredSeconds: measured, mostLive: mostLive, limit: concurrent,
                       claimP99Milliseconds: p99, claims: claims, exportSeconds: export.totalSeconds, exportRows: rows - 1)
    }

    /// The 99th percentile of `voicebridge_campaign_claim_seconds`: the upper bound of its bucket.
    static func claimPercentile(metricsURL: String) async throws -> (Double, Int) {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: metricsURL), timeout: .seconds(10))
        let text = String(buffer: try await response.body.collect(upTo: 8 << 20))
        var buckets: [(Double, Int)] = []
        for line in text.split(separator: "\n") where line.hasPrefix("voicebridge_campaign_claim_seconds_bucket{le=\"") {
            let parts = line.split(separator: "\"")
            guard parts.count >= 3, let count = Int(parts[2].trimmingCharacters(in: CharacterSet(charactersIn: "} "))) else { continue }
            buckets.append((parts[1] == "+Inf" ? .infinity : Double(parts[1]) ?? .infinity, count))
        }
        guard let total = buckets.last?.1, total > 0 else { throw BenchError("no campaign claims in /metrics") }
        let p99 = buckets.first { Double($0.1) >= Double(total) * 0.99 }?.0 ?? .infinity
        return (p99 * 1000, total)
    }

    static func send(_ url: String, method: HTTPMethod, body: Data? = nil, contentType: String = "application/json") async throws -> [String: Any] {
        var request = HTTPClientRequest(url: url)
        request.method = method
        if let body {
            request.headers.add(name: "Content-Type", value: contentType)
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(120))
        let data = try await response.body.collect(upTo: 64 << 20)
        guard (200..<300).contains(response.status.code) else { throw BenchError("\(method) \(url): \(response.status.code) \(String(buffer: data))") }
        return (try? JSONSerialization.jsonObject(with: Data(data.readableBytesView))) as? [String: Any] ?? [:]
    }
}
