import Bridge
import Foundation
import NIOCore
import NIOPosix
import Pipeline
import Synchronization

/// N RTP echo calls through VoiceBridge's media path: jitter buffer in, pacer out, every call on
/// the shared 20 ms media tick. The load comes from another process (RTPLoadGenerator).
enum RTPEchoBenchmark {
    struct Result {
        var calls: Int
        var cpuPercentPerCall: Double
        var lossPercent: Double
        /// Deviation of the interval between our consecutive sends on a call from 20 ms.
        var p99JitterMilliseconds: Double
        var maxJitterMilliseconds: Double
        var sent: Int
        var received: Int
    }

    /// Send times of one call, turned into interval deviations (microseconds).
    final class SendLog: Sendable {
        let state = Mutex<(last: ContinuousClock.Instant?, deviations: [Int32])>((nil, []))
        func sent(at now: ContinuousClock.Instant) {
            state.withLock { s in
                if let last = s.last {
                    let micros = last.duration(to: now).totalNanoseconds / 1000
                    s.deviations.append(Int32(clamping: abs(micros - 20_000)))
                }
                s.last = now
            }
        }
    }

    static func run(calls n: Int, seconds: Double) async throws -> Result {
        // The load generator is started before any socket is open and told the ports on its
        // standard input: Foundation's `Process.run()` walks every open descriptor of this
        // process in the child, which crashed with the ~2000 RTP/RTCP sockets of 1000 calls open.
        let generator = Process()
        generator.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        generator.arguments = ["rtp-generator", "--seconds", "\(seconds)", "--ports", "-"]
        let output = Pipe(), input = Pipe()
        generator.standardOutput = output
        generator.standardInput = input
        try generator.run()
        defer { if generator.isRunning { generator.terminate() } }
        let pool = try RTPPortPool(range: 40000...(40000 + 4 * n + 100))
        // Every call's sockets on one event loop, and the media tick runs on it too.
        let mediaLoop = MultiThreadedEventLoopGroup.singleton.next()
        let scheduler = PacerScheduler<[UInt8]>()
        var sessions: [RTPSession] = []
        var logs: [SendLog] = []
        for _ in 0..<n {
            let log = SendLog()
            logs.append(log)
            let session = try await RTPSession.open(host: "127.0.0.1", pool: pool, inactivityTimeout: 3600, group: mediaLoop)
            let pacer = Pacer<[UInt8]>(input: BoundedQueue(capacity: 8, policy: .suspendProducer))
            // Echo: what the jitter buffer releases is queued for the pacer (never waits: a tick
            // callback must not suspend; a full queue would drop, and drops show up as loss).
            session.setHandlers(media: { payload in _ = pacer.input.trySend(.audio(payload, item: "echo")) }, dtmf: { _ in })
            scheduler.register {
                // Release what the jitter buffer has due first, so the pacer can send it this tick.
                let outcome = session.tick()
                pacer.tick { output in
                    if case .audio(let frame, _) = output {
                        session.send(frame: frame)
                        log.sent(at: .now)
                    }
                }
                return outcome != .closed
            }
            sessions.append(session)
        }
        let ticking = Task {
            await scheduler.run(on: mediaLoop)
        }

        let cpuBefore = processCPUTime()
        let wallStart = ContinuousClock.now
        input.fileHandleForWriting.write(Data((sessions.map { "\($0.localPort)" }.joined(separator: ",") + "\n").utf8))
        try input.fileHandleForWriting.close()
        let report = await withCheckedContinuation { (c: CheckedContinuation<Data, Never>) in
            DispatchQueue.global().async {
                let data = output.fileHandleForReading.readDataToEndOfFile()
                generator.waitUntilExit()
                c.resume(returning: data)
            }
        }
        let cpu = processCPUTime() - cpuBefore
        let wall = wallStart.duration(to: .now).totalSeconds
        ticking.cancel()
        await ticking.value
        for session in sessions { await session.close() }
        guard let report = try JSONSerialization.jsonObject(with: report) as? [String: Any],
              let sent = report["sent"] as? Int, let received = report["received"] as? Int else {
            throw CocoaError(.coderReadCorrupt)
        }
        // Skip each call's first second, while its jitter buffer settles.
        var deviations = logs.flatMap { $0.state.withLock { $0.deviations }.dropFirst(50) }
        deviations.sort()
        let p99 = deviations.isEmpty ? 0 : Double(deviations[Int(Double(deviations.count - 1) * 0.99)]) / 1000
        return Result(calls: n, cpuPercentPerCall: cpu / wall * 100 / Double(n),
                      lossPercent: sent == 0 ? 100 : max(0, Double(sent - received)) * 100 / Double(sent),
                      p99JitterMilliseconds: p99, maxJitterMilliseconds: Double(deviations.last ?? 0) / 1000,
                      sent: sent, received: received)
    }
}
