import Foundation

extension BenchMain {
    /// `voicebridge-bench soak [--seconds 600] [--sip-calls 200] [--streams 200] [--call-seconds 60]
    /// [--interval 10] [--lateness budget|reported] [--output DIR]`: prints a line per sample as it goes, then the verdict;
    /// exits 1 when the run is not flat, loses or delays frames, or leaves a call incomplete.
    static func soak(_ args: [String]) async throws {
        // Unbuffered, so each sample shows as it is taken even when the output is a pipe (CI).
        func say(_ text: String) { FileHandle.standardOutput.write(Data((text + "\n").utf8)) }
        // A typo or `--help` must not start a ten-minute run with the defaults. One table gives the
        // options, their defaults and the usage line.
        let defaults: KeyValuePairs = ["--seconds": "600", "--sip-calls": "200", "--streams": "200", "--call-seconds": "60",
                                       "--interval": "10", "--lateness": "budget", "--output": "bench-results"]
        let usage = "usage: voicebridge-bench soak " + defaults.map { "[\($0.key) \($0.value)]" }.joined(separator: " ")
        var given = Dictionary(uniqueKeysWithValues: defaults.map { ($0.key, $0.value) })
        var rest = args.makeIterator()
        while let name = rest.next() {
            guard given[name] != nil, let value = rest.next(),
                  name == "--output" || (name == "--lateness" ? SoakTest.Lateness(rawValue: value) != nil : Double(value).map({ $0 >= 0 }) == true) else {
                FileHandle.standardError.write(Data("voicebridge-bench soak: cannot read `\(name)`\n\(usage)\n".utf8))
                exit(2)
            }
            given[name] = value
        }
        func option(_ name: String) -> Double { Double(given[name]!)! }   // every value was checked above or is a default
        let output = given["--output"]!
        let lateness = SoakTest.Lateness(rawValue: given["--lateness"]!)!   // checked above
        let seconds = option("--seconds"), sipCalls = Int(option("--sip-calls")), streams = Int(option("--streams"))
        let callSeconds = option("--call-seconds"), interval = option("--interval")
        say("== Soak: `voicebridge serve` (loopback engine) for \(Int(seconds)) s with \(sipCalls) SIP calls (sipp, G.711 RTP) and \(streams) Twilio streams"
              + " at once, each call \(Int(callSeconds)) s then replaced; sampled every \(Int(interval)) s; media ticks judged on: \(lateness.rawValue)")
        say(table(["s", "RSS MB", "fds", "threads", "live calls", "queue high-water", "late frames", "> 40 ms", "worst ms", "dropped"], []))
        let report = try await SoakTest.run(serverBinary: try serverBinary(), seconds: seconds, sipCalls: sipCalls, streams: streams,
                                            callSeconds: callSeconds, interval: interval, lateness: lateness) { s in
            say([String(Int(s.seconds)), format(Double(s.rssKB) / 1024, digits: 1), String(s.fds), String(s.threads), String(s.liveCalls),
                   String(s.queueHighWater), String(s.lateFrames), String(s.audiblyLateFrames),
                 format(s.worstLatenessMilliseconds, digits: 1), String(s.droppedFrames)].joined(separator: " | "))
        }
        say(table(["after warm-up (\(Int(report.warmUpSeconds)) s)", "value"], [
            ["RSS slope", "\(format(report.rssSlopeKBPerMinute, digits: 1)) KB/min"],
            ["open descriptors slope", "\(format(report.fdSlopePerMinute, digits: 2)) /min"],
            ["threads slope", "\(format(report.threadSlopePerMinute, digits: 2)) /min"],
            ["SIP calls completed (sipp) / stored", "\(report.sip.successful) / \(report.storedSIPCalls) (failed \(report.sip.failed))"],
            ["Twilio streams run / stored", "\(report.streams.streams) / \(report.storedStreamCalls)"],
            ["stream frames sent / echoed", "\(report.streams.sent) / \(report.streams.received) (lost beyond the 3 frames the resamplers hold: \(report.streams.lost); most missing from one stream: \(report.streams.worstLoss))"],
            ["calls stored incomplete", "\(report.incompleteCalls.count)"],
        ]))
        let json: [String: Any] = [
            "seconds": seconds, "sip_calls": sipCalls, "streams": streams, "call_seconds": callSeconds, "warm_up_seconds": report.warmUpSeconds,
            "rss_slope_kb_per_min": report.rssSlopeKBPerMinute, "fd_slope_per_min": report.fdSlopePerMinute, "thread_slope_per_min": report.threadSlopePerMinute,
            "sip_completed": report.sip.successful, "sip_failed": report.sip.failed, "sip_stored": report.storedSIPCalls,
            "streams_run": report.streams.streams, "streams_stored": report.storedStreamCalls, "stream_frames_sent": report.streams.sent,
            "stream_frames_echoed": report.streams.received, "stream_frames_lost": report.streams.lost,
            "incomplete_calls": report.incompleteCalls.count, "lateness_verdict": lateness.rawValue, "failures": report.failures, "reported": report.reported,
            "samples": report.samples.map { ["s": $0.seconds, "rss_kb": $0.rssKB, "fds": $0.fds, "threads": $0.threads, "live_calls": $0.liveCalls,
                                             "queue_high_water": $0.queueHighWater, "late_frames": $0.lateFrames, "audibly_late_frames": $0.audiblyLateFrames,
                                             "worst_lateness_ms": $0.worstLatenessMilliseconds,
                                             "dropped_frames": $0.droppedFrames] as [String: Any] },
        ]
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        try write(json, to: output, as: "soak.json")
        if !report.reported.isEmpty { say("reported, not judged:\n" + report.reported.map { "  · \($0)" }.joined(separator: "\n")) }
        if report.passed {
            say("soak: passed")
        } else {
            say("soak: FAILED\n" + report.failures.map { "  - \($0)" }.joined(separator: "\n"))
            if !report.sipErrors.isEmpty { say("sipp's error log, last lines:\n" + report.sipErrors.joined(separator: "\n")) }
            exit(1)
        }
    }
}
