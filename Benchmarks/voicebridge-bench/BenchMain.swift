import Calls
import Foundation
import Personas
import Pipeline
import TestSupport
import Realtime

/// `make bench`: prints tables and writes the same figures as JSON into the output folder.
@main
struct BenchMain {
    static func main() async throws {
        var output = "bench-results"
        var seconds = 5.0
        var rtpCounts = [100, 500, 1000]
        var streamCounts = [100, 300, 500, 1000]
        var loopbackCounts = [100, 500, 1000]
        var suites: Set<String> = ["pipeline", "sip-rtp", "media-streams", "loopback-streams", "dialects", "engines", "barge-in", "vad", "personas", "personas-espeak", "amd", "campaigns", "queue", "tools", "knowledge", "turns", "early-replies", "recognition", "korean", "held-out", "screeners", "menus", "languages", "calibration", "line", "capacity", "traces"]
        var personaConcurrency = 5
        // Steps of 180 s: a step of 60 s was mostly its ramp (14 live on average at 20, 16–17 in 180 s).
        var capacitySteps = [5, 10, 15, 20, 30], capacityAdmitted = 40, capacitySeconds = 180.0
        var lineConditions: Set<String>?
        if CommandLine.arguments.dropFirst().first == "rtp-generator" {
            let args = Array(CommandLine.arguments.dropFirst(2))
            // "--ports -": one line of comma-separated ports on standard input (see RTPEchoBenchmark).
            var portList = args.firstIndex(of: "--ports").map { args[$0 + 1] } ?? ""
            if portList == "-" { portList = readLine() ?? "" }
            let ports = portList.split(separator: ",").compactMap { Int($0) }
            let secs = args.firstIndex(of: "--seconds").flatMap { Double(args[$0 + 1]) } ?? 5
            try await RTPLoadGenerator.run(ports: ports, seconds: secs)
            return
        }
        if CommandLine.arguments.dropFirst().first == "soak" {
            try await soak(Array(CommandLine.arguments.dropFirst(2)))
            return
        }
        var arguments = CommandLine.arguments.dropFirst().makeIterator()
        while let argument = arguments.next() {
            switch argument {
            case "--output": output = arguments.next() ?? output
            case "--seconds": seconds = arguments.next().flatMap(Double.init) ?? seconds
            case "--calls": rtpCounts = (arguments.next() ?? "").split(separator: ",").compactMap { Int($0) }
            case "--streams": streamCounts = (arguments.next() ?? "").split(separator: ",").compactMap { Int($0) }
            case "--loopback-streams": loopbackCounts = (arguments.next() ?? "").split(separator: ",").compactMap { Int($0) }
            case "--only": suites = Set((arguments.next() ?? "").split(separator: ",").map(String.init))
            case "--persona-concurrency": personaConcurrency = arguments.next().flatMap(Int.init) ?? personaConcurrency
            case "--line-conditions": lineConditions = Set((arguments.next() ?? "").split(separator: ",").map(String.init))
            case "--capacity-steps": capacitySteps = (arguments.next() ?? "").split(separator: ",").compactMap { Int($0) }
            case "--capacity-admitted": capacityAdmitted = Int(arguments.next() ?? "") ?? 0
            case "--capacity-seconds": capacitySeconds = arguments.next().flatMap(Double.init) ?? capacitySeconds
            default:
                FileHandle.standardError.write(Data("usage: voicebridge-bench [--output DIR] [--seconds S] [--calls 100,500,1000] [--streams 100,300,500,1000] [--loopback-streams 100,500,1000] [--persona-concurrency 5] [--line-conditions clean,babble-10,echo,echo-aec,echo-silent,echo-silent-aec,clean-ns,babble-10-ns,clean-bg,babble-10-bg] [--capacity-steps 5,10,15,20,30] [--capacity-admitted 40] [--capacity-seconds 180] [--only pipeline,sip-rtp,media-streams,loopback-streams,dialects,engines,barge-in,vad,personas,personas-espeak,amd,campaigns,queue,tools,knowledge,turns,early-replies,recognition,korean,held-out,screeners,menus,calibration,line,capacity,traces]\n".utf8))
                exit(2)
            }
        }
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        if suites.contains("pipeline") { try await pipeline(output: output) }
        if suites.contains("sip-rtp") { try await sipRTP(output: output, seconds: seconds, counts: rtpCounts) }
        if suites.contains("media-streams") { try await mediaStreams(output: output, seconds: seconds, counts: streamCounts) }
        if suites.contains("loopback-streams") { try await loopbackStreams(output: output, seconds: seconds, counts: loopbackCounts) }
        if suites.contains("dialects") { try await dialectStreams(output: output, seconds: seconds, streams: 200) }
        if suites.contains("engines") { try await engines(output: output) }
        if suites.contains("barge-in") { try await bargeIn(output: output) }
        if suites.contains("vad") { try await vad(output: output) }
        if suites.contains("personas") { try await personas(output: output, concurrency: personaConcurrency) }
        if suites.contains("personas-espeak") { try await personas(output: output, concurrency: personaConcurrency, voices: .espeak) }
        if suites.contains("amd") { try await machineDetection(output: output) }
        if suites.contains("campaigns") { try await campaigns(output: output) }
        if suites.contains("queue") { try await queue(output: output) }
        if suites.contains("tools") { try await tools(output: output) }
        if suites.contains("knowledge") { try await knowledge(output: output) }
        if suites.contains("turns") { try await turns(output: output) }
        if suites.contains("early-replies") { try await earlyReplies(output: output) }
        if suites.contains("recognition") { try await recognitionBias(output: output) }
        if suites.contains("korean") { try await korean(output: output, concurrency: personaConcurrency) }
        if suites.contains("calibration") { try await calibration(output: output, concurrency: personaConcurrency) }
        if suites.contains("held-out") { try await heldOut(output: output, concurrency: personaConcurrency) }
        if suites.contains("screeners") { try await screeners(output: output, concurrency: personaConcurrency) }
        if suites.contains("menus") { try await menus(output: output, concurrency: personaConcurrency) }
        if suites.contains("languages") { try await languages(output: output, concurrency: personaConcurrency) }
        if suites.contains("line") { try await line(output: output, concurrency: personaConcurrency, conditions: lineConditions) }
        if suites.contains("capacity") { try await capacity(output: output, steps: capacitySteps, admitted: capacityAdmitted, seconds: capacitySeconds) }
        if suites.contains("traces") { try await traces(output: output) }
    }

    static func vad(output: String) async throws {
        print("== Voice activity detection on the hard labelled set (speech fixtures over 7 line noises at 0/10/20 dB SNR, 20 s of each noise alone, soft speech)")
        let results = try await VADBenchmark.run(deps: ".deps")
        func cells(_ name: String, _ s: VADTestSet.Score) -> [String] {
            [name, format(s.accuracy * 100, digits: 1), format(s.falseOnsetsPerMinute, digits: 1), format(s.medianOnsetDelayMilliseconds, digits: 0), "\(s.missedSegments)/\(s.segments)"]
        }
        for result in results {
            print("detector: \(result.detector)")
            print(table(["noise", "frame accuracy %", "false onsets per min", "median onset delay ms", "segments missed"],
                        result.rows.map { cells($0.noise, $0.score) } + [cells("all", result.total)]))
        }
        print(table(["detector", "frame accuracy %", "false onsets per min", "µs per 20 ms frame", "goal"], results.map {
            [$0.detector, format($0.total.accuracy * 100, digits: 1), format($0.total.falseOnsetsPerMinute, digits: 1), format($0.microsecondsPerFrame, digits: 2), "≥ 95 %, < 1/min"]
        }))
        let json: [String: Any] = Dictionary(uniqueKeysWithValues: results.map { result in
            (result.detector, [
                "by_noise": Dictionary(uniqueKeysWithValues: result.rows.map { ($0.noise, ["accuracy": $0.score.accuracy, "false_onsets_per_min": $0.score.falseOnsetsPerMinute,
                                                                                           "median_onset_delay_ms": $0.score.medianOnsetDelayMilliseconds,
                                                                                           "missed": $0.score.missedSegments, "segments": $0.score.segments] as [String: Any]) }),
                "accuracy": result.total.accuracy, "false_onsets_per_min": result.total.falseOnsetsPerMinute,
                "median_onset_delay_ms": result.total.medianOnsetDelayMilliseconds, "us_per_frame": result.microsecondsPerFrame,
            ] as [String: Any])
        })
        try write(json, to: output, as: "vad.json")
    }

    static func turns(output: String) async throws {
        print("== End of turn on the labelled set (\(TurnBenchmark.lines.count) caller lines whole and cut mid-sentence, \(TurnBenchmark.voices.count) espeak-ng voices, 8 kHz μ-law round-tripped)")
        let r = try await TurnBenchmark.run(deps: ".deps")
        func row(_ name: String, _ s: TurnBenchmark.Score) -> [String] {
            [name, "\(s.falseCutOffs)/\(s.cutLines)", format(s.rate * 100, digits: 1), format(s.median, digits: 0), format(s.mean, digits: 0)]
        }
        func name(_ policy: TurnBenchmark.Policy) -> String {
            policy == .once ? "model, judged once at 200 ms" : "model, judged at " + TurnBenchmark.judgedAt.map(String.init).joined(separator: "/") + " ms"
        }
        let chosen = r.model.first { $0.policy == TurnBenchmark.enginePolicy && $0.threshold == TurnBenchmark.defaultThreshold }!.score
        print(table(["detector", "false cut-offs", "%", "median wait on whole turns ms", "mean wait ms"],
                    [row("pause (300 ms)", r.pause)] + r.model.map { row("\(name($0.policy)) ≥ \(format(Double($0.threshold), digits: 1)), phone", $0.score) }
                    + [row("\(name(TurnBenchmark.enginePolicy)) ≥ \(format(Double(TurnBenchmark.defaultThreshold), digits: 1)), clean 16 kHz", r.modelClean)]))
        let fewer = r.pause.rate > 0 ? (1 - chosen.rate / r.pause.rate) * 100 : 0
        print("the engine's setting (\(name(TurnBenchmark.enginePolicy)), threshold \(format(Double(TurnBenchmark.defaultThreshold), digits: 1)), phone audio) vs pause: \(format(fewer, digits: 1)) % fewer false cut-offs (goal ≥ 40 %) at a median wait of \(format(chosen.median, digits: 0)) ms vs \(format(r.pause.median, digits: 0)) ms (goal: equal or lower)")
        print("cost per evaluation (one thread): features \(format(r.featuresMilliseconds, digits: 1)) ms + inference \(format(r.inferenceMilliseconds, digits: 1)) ms; a 60 s call of 8 turns, two speech ends each (the model is asked at most once per speech end), spends \(format((r.featuresMilliseconds + r.inferenceMilliseconds) * 16 / 60_000 * 100, digits: 2)) % of a core on it")
        func json(_ s: TurnBenchmark.Score) -> [String: Any] {
            ["false_cut_offs": s.falseCutOffs, "cut_lines": s.cutLines, "rate": s.rate, "median_wait_ms": s.median]
        }
        try write(["items": r.items, "pause": json(r.pause), "model_clean": json(r.modelClean),
                   "model": Dictionary(uniqueKeysWithValues: r.model.map { ("\($0.policy.rawValue) \(format(Double($0.threshold), digits: 1))", json($0.score)) }),
                   "threshold": TurnBenchmark.defaultThreshold, "fewer_false_cut_offs_percent": fewer,
                   "features_ms": r.featuresMilliseconds, "inference_ms": r.inferenceMilliseconds] as [String: Any],
                  to: output, as: "turns.json")
    }

    /// Who speaks in the personas suite: Piper's voice on both sides (the defaults), or espeak-ng's
    /// on both — robotic speech the recognizers on both sides hear far worse.
    enum PersonaVoices { case piper, espeak }

    static func campaigns(output: String) async throws {
        print("== Campaigns: 10,000 contacts through `voicebridge serve`, calls short-circuited (the simulated callee never answers, 1 s ring timeout)")
        let f = try await CampaignBenchmark.run(serverBinary: try serverBinary())
        let error = (f.measuredPerMinute - Double(f.configuredPerMinute)) * 100 / Double(f.configuredPerMinute)
        print(table(["measure", "value", "goal"], [
            ["upload + validation of \(f.contacts) rows (one POST, row report back)", "\(format(f.uploadSeconds, digits: 2)) s", "—"],
            ["dial pacing over \(format(f.measuredSeconds, digits: 0)) s (configured \(f.configuredPerMinute)/min)", "\(format(f.measuredPerMinute, digits: 1))/min (\(format(error, digits: 1)) %)", "± 5 %"],
            ["most of the campaign's calls live at once (sampled every 100 ms)", "\(f.mostLive) of \(f.limit) allowed", "never above"],
            ["queue claim (contact → queued call, one transaction), p99 over \(f.claims) claims", "≤ \(format(f.claimP99Milliseconds, digits: 2)) ms", "—"],
            ["export of \(f.exportRows) rows (results.csv, streamed)", "\(format(f.exportSeconds, digits: 2)) s", "—"],
        ]))
        let json: [String: Any] = [
            "contacts": f.contacts, "upload_seconds": f.uploadSeconds, "configured_per_minute": f.configuredPerMinute,
            "measured_per_minute": f.measuredPerMinute, "pacing_error_pct": error, "measured_seconds": f.measuredSeconds,
            "most_live": f.mostLive, "limit": f.limit, "claim_p99_ms_bucket": f.claimP99Milliseconds, "claims": f.claims,
            "export_seconds": f.exportSeconds, "export_rows": f.exportRows,
        ]
        try write(json, to: output, as: "campaigns.json")
        guard abs(error) <= 5, f.exportRows == f.contacts else { throw BenchError("pacing off by \(format(error, digits: 1)) % or export rows \(f.exportRows) ≠ \(f.contacts)") }
    }

    static func engines(output: String) async throws {
        print("== Conversation engines")
        let realtime = try await EngineBenchmark.realtimeOverhead(deltas: 300)
        FileHandle.standardError.write(Data("engines: realtime overhead measured; local turns take about a minute in real time\n".utf8))
        let local = try await EngineBenchmark.localTurnLatency(turns: 8, moonshinePath: ".deps/moonshine")
        print(table(["measure", "p50 ms", "p99 ms", "samples", "target"], [
            ["local turn latency (caller speech end → first agent audio; the turn ends 300 ms after it when the words answer, else 500 ms)",
             format(local.p50), format(local.p99), String(local.samples), "p50 ≤ 1000"],
            ["realtime overhead (delta sent on loopback → 20 ms frame queued for the pacer)",
             format(realtime.p50, digits: 3), format(realtime.p99, digits: 3), String(realtime.samples), "p99 ≤ 2"],
        ]))
        let json: [String: Any] = [
            "local_turn_latency_ms": ["p50": local.p50, "p99": local.p99, "samples": local.samples],
            "realtime_overhead_ms": ["p50": realtime.p50, "p99": realtime.p99, "samples": realtime.samples],
        ]
        try write(json, to: output, as: "engines.json")
    }

    static func mediaStreams(output: String, seconds: Double, counts: [Int]) async throws {
        let binary = try serverBinary()
        print("== Twilio media streams: `voicebridge serve` in echo mode, load from this process, \(seconds) s measured after 2 s warm-up")
        var rows: [[String]] = []
        var streams: [[String: Any]] = []
        for n in counts {
            let r = try await MediaStreamBenchmark.run(streams: n, seconds: seconds, serverBinary: binary)
            // The echo plays in the silent half of each 2 s cycle: 25 frames a second come back.
            let expected = Int(Double(r.connected) * seconds * 25)
            rows.append([String(n), String(r.connected), format(r.cpuPercentPerStream, digits: 3), String(r.lateFrames), String(r.audiblyLateFrames), format(r.maxLatenessMilliseconds),
                         format(r.rssKBPerStream, digits: 0), "\(r.mediaReceived)/\(expected)", String(r.clientLateRounds), format(r.loadCPUPercent, digits: 0)])
            streams.append(["n": n, "connected": r.connected, "cpu_pct_per_stream": r.cpuPercentPerStream, "late_frames": r.lateFrames, "audibly_late_frames": r.audiblyLateFrames,
                            "max_tick_lateness_ms": r.maxLatenessMilliseconds, "rss_kb_per_stream": r.rssKBPerStream,
                            "media_received": r.mediaReceived, "media_sent": r.mediaSent, "client_late_rounds": r.clientLateRounds,
                            "load_cpu_pct": r.loadCPUPercent, "server_cpu_pct": r.cpuPercentPerStream * Double(max(1, r.connected))])
        }
        print(table(["streams", "connected", "CPU % per stream", "late frames (> 10 ms)", "of them > 40 ms", "max tick lateness ms", "RSS KB per stream", "media back/expected (half)", "client late rounds", "load CPU %"], rows))
        try write(["streams": streams, "target": "≤ 0.1 % of one core per stream at N = 1000"], to: output, as: "media-streams.json")
    }

    static func loopbackStreams(output: String, seconds: Double, counts: [Int]) async throws {
        let binary = try serverBinary()
        print("== Twilio media streams: `voicebridge serve` in loopback mode (every frame back through decode, VAD, 8k→16k→8k, encode, pacing), \(seconds) s measured after 2 s warm-up")
        var rows: [[String]] = []
        var streams: [[String: Any]] = []
        for n in counts {
            let r = try await MediaStreamBenchmark.run(streams: n, seconds: seconds, serverBinary: binary, mode: "loopback")
            let ratio = r.mediaSent == 0 ? 0 : Double(r.mediaReceived) / Double(r.mediaSent)
            rows.append([String(n), String(r.connected), format(r.cpuPercentPerStream, digits: 3), String(r.lateFrames), String(r.audiblyLateFrames),
                         format(r.maxLatenessMilliseconds), "\(r.mediaReceived)/\(r.mediaSent)", format(ratio, digits: 4), String(r.clientLateRounds), format(r.loadCPUPercent, digits: 0)])
            streams.append(["n": n, "connected": r.connected, "cpu_pct_per_stream": r.cpuPercentPerStream, "late_frames": r.lateFrames,
                            "audibly_late_frames": r.audiblyLateFrames, "max_tick_lateness_ms": r.maxLatenessMilliseconds,
                            "media_received": r.mediaReceived, "media_sent": r.mediaSent, "out_in_ratio": ratio,
                            "client_late_rounds": r.clientLateRounds, "load_cpu_pct": r.loadCPUPercent])
        }
        print(table(["streams", "connected", "CPU % per stream", "late frames (> 10 ms)", "of them > 40 ms", "max tick lateness ms", "frames back/sent", "out/in ratio", "client late rounds", "load CPU %"], rows))
        try write(["streams": streams, "target": "≤ 0.15 % of one core per loopback stream at N = 500; out/in ≥ 0.99"], to: output, as: "loopback-streams.json")
    }

    /// One row per dialect at the same load: what a provider's words cost over Twilio's.
    static func dialectStreams(output: String, seconds: Double, streams n: Int) async throws {
        let binary = try serverBinary()
        print("== Media-stream dialects: \(n) streams each, `voicebridge serve` in echo mode, \(seconds) s measured after 2 s warm-up")
        var rows: [[String]] = []
        var results: [[String: Any]] = []
        for dialect in LoadDialect.allCases {
            let r = try await MediaStreamBenchmark.run(streams: n, seconds: seconds, serverBinary: binary, dialect: dialect)
            let expected = Int(Double(r.connected) * seconds * 25)
            rows.append([dialect.path, String(r.connected), format(r.cpuPercentPerStream, digits: 3), String(r.lateFrames), String(r.audiblyLateFrames),
                         "\(r.mediaReceived)/\(expected)", String(r.clientLateRounds)])
            results.append(["dialect": dialect.rawValue, "path": dialect.path, "n": n, "connected": r.connected, "cpu_pct_per_stream": r.cpuPercentPerStream,
                            "late_frames": r.lateFrames, "audibly_late_frames": r.audiblyLateFrames, "media_received": r.mediaReceived, "media_sent": r.mediaSent])
        }
        print(table(["path", "connected", "CPU % per stream", "late frames (> 10 ms)", "of them > 40 ms", "media back/expected (half)", "client late rounds"], rows))
        try write(["dialects": results, "streams": n], to: output, as: "dialects.json")
    }

    static func serverBinary() throws -> String {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("voicebridge").path
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw BenchError("the media-stream suites need the server binary next to the benchmark: \(binary) (make bench builds both)")
        }
        return binary
    }

    static func sipRTP(output: String, seconds: Double, counts: [Int]) async throws {
        print("== RTP echo calls: load generator in another process → jitter buffer → pacer (shared 20 ms tick) → back, \(seconds) s each")
        var rows: [[String]] = []
        var calls: [[String: Any]] = []
        for n in counts {
            let r = try await RTPEchoBenchmark.run(calls: n, seconds: seconds)
            rows.append([String(n), format(r.cpuPercentPerCall, digits: 3), format(r.lossPercent, digits: 3), format(r.p99JitterMilliseconds),
                         format(r.maxJitterMilliseconds), String(r.sent), String(r.received)])
            calls.append(["n": n, "cpu_pct_per_call": r.cpuPercentPerCall, "loss_pct": r.lossPercent, "p99_jitter_ms": r.p99JitterMilliseconds,
                          "max_jitter_ms": r.maxJitterMilliseconds, "packets_sent": r.sent, "packets_echoed": r.received])
        }
        print(table(["calls", "CPU % per call", "loss %", "p99 send jitter ms", "max send jitter ms", "packets sent", "echoed"], rows))
        try write(["calls": calls, "target": "1000 calls, zero loss, p99 jitter < 2 ms"], to: output, as: "sip-rtp.json")
    }

    static func pipeline(output: String) async throws {
        print("== Pipeline per-frame cost through CallPipeline (what every call runs), one core, \(FrameCostBenchmark.frames) frames of 20 ms")
        let cost = try await FrameCostBenchmark.run(deps: ".deps")
        print(table(["side", "µs per frame", "target"], [
            ["caller: decode → record → VAD → tones → barge-in → 8k→16k", format(cost.inboundMicroseconds), "≤ 20"],
            ["… with echo cancellation (engine.echo_cancellation)", format(cost.inboundCancellingMicroseconds), ""],
            ["… with noise suppression (engine.noise_suppression)", cost.inboundSuppressingMicroseconds.map { format($0) } ?? "not installed", ""],
            ["agent: decode → 24k→8k → record → playback → encode → marks", format(cost.outboundMicroseconds), "≤ 20"],
        ]))
        print("Per stage (the pipeline's own meters, every \(StageMeter.timingInterval)th frame timed; a timed frame also pays two clock reads):")
        print(table(["side", "stage", "frames in", "frames out", "µs per frame"], cost.stages.map {
            [$0.side, $0.stage, String($0.framesIn), String($0.framesOut), format($0.microsecondsPerFrame, digits: 3)]
        }))
        print(table(["tone detector alone", "µs per 20 ms frame", "target"], [
            ["speech-like audio", format(cost.toneMicroseconds.speech, digits: 3), "≤ 2"],
            ["a DTMF key held down", format(cost.toneMicroseconds.tone, digits: 3), "≤ 2"],
        ]))
        print(table(["resampler, fed 20 ms chunks", "samples/s (input)"], cost.resamplerThroughput.map { [$0.name, format($0.samplesPerSecond, digits: 0)] }))
        let json: [String: Any] = [
            "inbound_us_per_frame": cost.inboundMicroseconds,
            "inbound_echo_cancelling_us_per_frame": cost.inboundCancellingMicroseconds,
            "inbound_noise_suppressing_us_per_frame": cost.inboundSuppressingMicroseconds as Any,
            "outbound_us_per_frame": cost.outboundMicroseconds,
            "stages": cost.stages.map { ["side": $0.side, "stage": $0.stage, "frames_in": $0.framesIn, "frames_out": $0.framesOut, "us_per_frame": $0.microsecondsPerFrame] },
            "tone_detector_us_per_frame": ["speech": cost.toneMicroseconds.speech, "dtmf": cost.toneMicroseconds.tone],
            "resampler_samples_per_s": cost.resamplerThroughput.first { $0.name == "8k→16k" }?.samplesPerSecond ?? 0,
            "resampler_samples_per_s_by_conversion": Dictionary(uniqueKeysWithValues: cost.resamplerThroughput.map { ($0.name, $0.samplesPerSecond) }),
            "machine": ["cores": ProcessInfo.processInfo.activeProcessorCount],
        ]
        try write(json, to: output, as: "pipeline.json")
    }

    /// The suite's figures as pretty JSON in the output folder.
    static func recognitionBias(output: String) async throws {
        print("== Recognition biased toward the question's words: persona answers (espeak-ng, 8 kHz μ-law) read by the local dialogue, right when the meaning matches the line's text")
        let rows = try await RecognitionBiasBenchmark.run(moonshinePath: ".deps/moonshine", whisperPath: ".deps/whisper", piper: try PiperVoice.installed(in: ".deps"))
        let bonuses = RecognitionBiasBenchmark.bonuses
        print(table(["answer kind", "words/min", "lines"] + bonuses.map { "bias \(format(Double($0), digits: 1))" } + ["16 kHz, bias \(format(Double(RecognitionBiasBenchmark.defaultBias), digits: 1))", "Whisper base", "Piper's voice"],
                    rows.map { r in ["\(r.kind.rawValue)", "\(r.rate)", "\(r.total)"] + r.right.map { "\($0)" } + ["\(r.wideband)", "\(r.whisper)", "\(r.piper)"] }))
        let totals = bonuses.indices.map { i in rows.reduce(0) { $0 + $1.right[i] } }
        let all = rows.reduce(0) { $0 + $1.total }
        let wideband = rows.reduce(0) { $0 + $1.wideband }
        let whisper = rows.reduce(0) { $0 + $1.whisper }
        let piper = rows.reduce(0) { $0 + $1.piper }
        let bias = format(Double(RecognitionBiasBenchmark.defaultBias), digits: 1)
        let byBias = zip(bonuses, totals).map { "bias \(format(Double($0), digits: 1)): \($1)/\(all)" }.joined(separator: ", ")
        let others: [String] = ["from 16 kHz (the browser's microphone), bias \(bias): \(wideband)/\(all)",
                                "Whisper base over the same line, unbiased: \(whisper)/\(all)",
                                "Piper's voice (en_US-joe-medium) over the same line, bias \(bias): \(piper)/\(all)"]
        print("all lines: " + byBias + "; " + others.joined(separator: "; "))
        let piperSeconds = rows.reduce(0) { $0 + $1.piperSeconds }, piperSpeech = rows.reduce(0) { $0 + $1.piperSpeech }
        print("Piper's voice: \(format(piperSpeech, digits: 1)) s of speech in \(format(piperSeconds, digits: 1)) s of one core (\(format(piperSpeech / piperSeconds, digits: 1))× real time)")
        try write(["lines": all, "bonuses": bonuses.map(Double.init), "right": totals, "right_16khz": wideband, "right_whisper": whisper, "right_piper": piper,
                   "piper_real_time_factor": piperSeconds / piperSpeech,
                   "rows": rows.map { ["kind": $0.kind.rawValue, "words_per_minute": $0.rate, "lines": $0.total, "right": $0.right, "right_16khz": $0.wideband] }],
                  to: output, as: "recognition.json")
    }

    static func korean(output: String, concurrency: Int) async throws {
        print("== Korean offline: Whisper base (whisper.cpp, q8_0) hearing espeak-ng's Korean over an 8 kHz μ-law line")
        let (results, cost) = try await KoreanBenchmark.run(whisperPath: ".deps/whisper", fixtures: "Tests/Fixtures/audio")
        print(table(["speech", "lines", "CER %", "meaning right", "yes/no right", "numbers right", "read as another answer"], results.map { r in
            [r.rate, "\(r.lines)", format(r.cer * 100, digits: 1), "\(r.meanings.right)/\(r.meanings.total)", "\(r.yesNo.right)/\(r.yesNo.total)",
             "\(r.numbers.right)/\(r.numbers.total)", "\(r.wrongAnswers)"]
        }))
        print("Whisper: real-time factor \(format(cost.realTimeFactor)) on one lane (\(format(cost.transcribeSeconds, digits: 1)) s for \(format(cost.audioSeconds, digits: 1)) s of speech); "
              + "resident memory added \(format(cost.residentMegabytesAdded, digits: 0)) MB")
        print(table(["said", "heard"], (results.first?.heard ?? []).map { [$0.said, $0.heard] }))
        print("== Korean personas: \(CalleePersona.korean.count) real calls (language ko; read-back off: the simulated callee does not hear Korean), \(concurrency) at a time")
        let run = try await PersonaBenchmark.run(serverBinary: try serverBinary(), concurrency: concurrency, personas: CalleePersona.korean, language: "ko",
                                                 environment: ["VOICEBRIDGE_ENGINE_READ_BACK": "none"])
        let statuses = run.outcomes.statuses
        let summaries = run.outcomes.summaries
        let answered = run.outcomes.answered
        let turns = EngineBenchmark.percentiles(run.turnLatencies)
        let share = { (m: Int, t: Int) in t == 0 ? 0 : Double(m) * 100 / Double(t) }
        print(table(["measure", "matched", "share %"], [
            ["stored question statuses", "\(statuses.0)/\(statuses.1)", format(share(statuses.0, statuses.1), digits: 1)],
            ["normalised answers", "\(summaries.0)/\(summaries.1)", format(share(summaries.0, summaries.1), digits: 1)],
            ["answered but wrong", "\(answered.0)/\(answered.1)", format(share(answered.0, answered.1), digits: 1)],
            ["turn latency p50 / p99 ms", format(turns.p50, digits: 0) + " / " + format(turns.p99, digits: 0), ""],
        ]))
        let differed = run.outcomes.differences()
        if !differed.isEmpty { print(table(["persona", "what differed"], differed)) }
        try write(["speech": results.map { ["speech": $0.rate, "lines": $0.lines, "cer": $0.cer, "meanings_right": $0.meanings.right, "yes_no_right": $0.yesNo.right,
                                            "yes_no_total": $0.yesNo.total, "numbers_right": $0.numbers.right, "numbers_total": $0.numbers.total, "read_as_another_answer": $0.wrongAnswers] },
                   "real_time_factor": cost.realTimeFactor, "resident_mb_added": cost.residentMegabytesAdded,
                   "personas": run.outcomes.count, "statuses_matched": statuses.0, "statuses_total": statuses.1,
                   "summaries_matched": summaries.0, "summaries_total": summaries.1, "answered_wrong": answered.0, "answered_total": answered.1,
                   "turn_p50_ms": turns.p50],
                  to: output, as: "korean.json")
    }

    static func write(_ json: Any, to output: String, as name: String) throws {
        let path = (output as NSString).appendingPathComponent(name)
        try JSONSerialization.data(withJSONObject: json, options: [.prettyPrinted, .sortedKeys]).write(to: URL(fileURLWithPath: path))
        print("wrote \(path)")
    }

    static func format(_ value: Double, digits: Int = 2) -> String { String(format: "%.\(digits)f", value) }

    static func table(_ header: [String], _ rows: [[String]]) -> String {
        let widths = header.indices.map { i in ([header[i]] + rows.map { $0[i] }).map(\.count).max()! }
        func line(_ cells: [String]) -> String {
            "| " + cells.enumerated().map { $1.padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(separator: " | ") + " |"
        }
        return ([line(header), "|" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "|") + "|"] + rows.map(line)).joined(separator: "\n")
    }
}

/// CPU time (user + system) this process has used.
func processCPUTime() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
}
