import Bridge
import Foundation
import Logging
import NIOCore
import Pipeline
import Synchronization
import Testing

/// A Vonage stream's leg, tick by tick on a scheduler the test drives by hand (as
/// `MediaStreamSocketLegPacingTests` does for Twilio's): the caller's binary 16 kHz audio becomes
/// the call's 20 ms frames with its wideband kept; the agent's goes out as binary 640-byte frames
/// paced like Twilio's; a mark — Vonage is sent none — comes back on the tick its audio has played
/// by the leg's count, not before; a clear is Vonage's `{"action":"clear"}` and drops the marks
/// still counting. No clock is read, so it runs in the shared pass.
@Suite struct VonageLegTests {
    final class Socket: Sendable {
        let byTick = Mutex<[Int: [MediaStreamSocketLeg.OutboundMessage]]>([:])
        let tick = Atomic<Int>(0)

        func socket() -> MediaStreamSocketLeg.Socket {
            .init(send: { messages in self.byTick.withLock { $0[self.tick.load(ordering: .relaxed), default: []] += messages } }, close: {})
        }

        var all: [MediaStreamSocketLeg.OutboundMessage] { byTick.withLock { s in s.keys.sorted().flatMap { s[$0]! } } }
        func audioFrames(at tick: Int) -> Int { byTick.withLock { ($0[tick] ?? []).filter(\.isBinary).count } }
    }

    static let connected = #"{"event":"websocket:connected","content-type":"audio/l16;rate=16000","from":"+15550001111"}"#

    /// A leg that has had its `websocket:connected` and runs on `scheduler`.
    static func started(_ socket: Socket, on scheduler: PacerScheduler<[UInt8]>) async throws -> (MediaStreamSocketLeg, Task<Void, Never>) {
        let leg = MediaStreamSocketLeg(dialect: .vonage, scheduler: scheduler, logger: Logger(label: "test"), socket: socket.socket())
        #expect(leg.receive(connected) == .accepted)
        let running = Task { await leg.run() }
        while scheduler.registeredCount < 1 { try await Task.sleep(for: .milliseconds(5)) }   // run() registers at once
        return (leg, running)
    }

    static func tick(_ scheduler: PacerScheduler<[UInt8]>, _ socket: Socket, _ ticks: ClosedRange<Int>) {
        for t in ticks {
            socket.tick.store(t, ordering: .relaxed)
            scheduler.tickRegistered()
        }
    }

    /// The events the leg gave, once it is finished.
    static func events(of leg: MediaStreamSocketLeg, _ running: Task<Void, Never>) async -> [MediaStreamEvent] {
        leg.finish()
        await running.value
        var events: [MediaStreamEvent] = []
        for await event in leg.events { events.append(event) }
        return events
    }

    /// 400 ms of the agent's audio and a mark, `ticks` ticks of the media clock.
    static func agentSpeaks(ticks: Int) async throws -> (socket: Socket, marks: [String]) {
        let scheduler = PacerScheduler<[UInt8]>()
        let socket = Socket()
        let (leg, running) = try await started(socket, on: scheduler)
        await leg.send(.media([UInt8](repeating: 0x7F, count: 3200)))
        await leg.send(.mark("done"))
        tick(scheduler, socket, 1...ticks)
        let marks = await events(of: leg, running).compactMap { if case .mark(let name) = $0 { name } else { nil } }
        return (socket, marks)
    }

    @Test func theAgentsAudioIsBinaryAndItsMarkComesBackWhenPlayedByTheLegsCount() async throws {
        let (socket, marks) = try await Self.agentSpeaks(ticks: 40)
        let messages = socket.all
        #expect(messages.allSatisfy { $0.isBinary && $0.text.readableBytes == 640 }, "only 20 ms of 16 kHz PCM, in binary frames: \(messages.map(\.text.readableBytes))")
        #expect(messages.count == 20 && marks == ["done"], "\(messages.count) frames, marks \(marks)")
        // Vonage plays a frame a tick from what it was sent: the audio has played when that
        // buffer, counted the same way, runs dry after the last write.
        let ticks = socket.byTick.withLock { $0.keys.sorted() }
        var buffered = 0, lastWrite = 0, left = 0
        for t in ticks.first!...ticks.last! {
            buffered = max(0, buffered - 1) + socket.audioFrames(at: t)
            if socket.audioFrames(at: t) > 0 { lastWrite = t; left = buffered }
            #expect(buffered <= MediaStreamSocketLeg.maximumBufferedFrames, "tick \(t): \(buffered) frames ahead")
        }
        let played = lastWrite + left
        #expect(try await Self.agentSpeaks(ticks: played).marks == ["done"], "the mark is back on tick \(played)")
        #expect(try await Self.agentSpeaks(ticks: played - 1).marks == [], "and not on tick \(played - 1), while audio is still at Vonage")
    }

    @Test func aMarkWithNoAudioAheadComesBackAtTheNextWrite() async throws {
        let scheduler = PacerScheduler<[UInt8]>()
        let socket = Socket()
        let (leg, running) = try await Self.started(socket, on: scheduler)
        await leg.send(.mark("empty"))
        Self.tick(scheduler, socket, 1...MediaStreamSocketLeg.framesPerWrite)
        #expect(await Self.events(of: leg, running).contains(.mark("empty")))
        #expect(socket.all.isEmpty, "nothing on the wire for it")
    }

    @Test func aClearIsVonagesActionAndDropsTheMarksStillCounting() async throws {
        let scheduler = PacerScheduler<[UInt8]>()
        let socket = Socket()
        let (leg, running) = try await Self.started(socket, on: scheduler)
        await leg.send(.media([UInt8](repeating: 0x7F, count: 3200)))
        await leg.send(.mark("cut"))
        Self.tick(scheduler, socket, 1...6)
        await leg.send(.clear)
        Self.tick(scheduler, socket, 7...40)
        let texts = socket.all.filter { !$0.isBinary }.map { String(buffer: $0.text) }
        #expect(texts == [#"{"action":"clear"}"#])
        #expect(socket.all.filter(\.isBinary).count < 20, "the rest of the audio was dropped")
        let events = await Self.events(of: leg, running)
        #expect(!events.contains(.mark("cut")), "a mark whose audio was cleared is not played: \(events)")
    }

    @Test func theCallersBinaryAudioBecomes20msFramesAndBadFramesAreRefusedByName() async throws {
        let scheduler = PacerScheduler<[UInt8]>()
        let leg = MediaStreamSocketLeg(dialect: .vonage, scheduler: scheduler, logger: Logger(label: "test"), socket: Socket().socket())
        let tone = (0..<3200).map { Int16(8000 * sin(2 * Double.pi * 400 * Double($0) / 16_000)) }
        let bytes = PCM16.bytes(tone)
        guard case .malformed(let early) = leg.receive(audio: ByteBuffer(bytes: bytes.prefix(640))) else { Issue.record("audio before websocket:connected"); return }
        #expect(early.contains("websocket:connected"))
        #expect(leg.receive(Self.connected) == .accepted)
        #expect(leg.start?.sampleRate == 16_000 && leg.start?.customParameters["from"] == "+15550001111")
        guard case .malformed(let odd) = leg.receive(audio: ByteBuffer(bytes: bytes.prefix(641))) else { Issue.record("an odd length"); return }
        #expect(odd.contains("odd length"))
        // 200 ms in messages of 20 ms and of 60 ms: all of it becomes 20 ms frames.
        var offset = 0
        for size in [640, 1920, 640, 1920, 1280] {
            #expect(leg.receive(audio: ByteBuffer(bytes: bytes[offset..<offset + size])) == .accepted)
            offset += size
        }
        let twilio = MediaStreamSocketLeg(dialect: .twilio, scheduler: scheduler, logger: Logger(label: "test"), socket: Socket().socket())
        guard case .malformed = twilio.receive(audio: ByteBuffer(bytes: bytes.prefix(640))) else { Issue.record("binary audio in a text dialect"); return }
        leg.finish()
        var frames: [MediaStreamMedia] = []
        for await event in leg.events { if case .media(let media) = event { frames.append(media) } }
        // The resampler holds back a frame or two's worth at the start; the rest comes out.
        #expect(frames.count >= 8 && frames.count <= 10 && frames.allSatisfy { $0.payload.count == 160 }, "\(frames.map(\.payload.count))")
        #expect(frames.allSatisfy { $0.wideband?.count == 320 }, "the 16 kHz audio is kept beside each frame for a wideband ear")
        #expect(frames.map(\.chunk) == Array(1...frames.count))
        // The tone at 8 kHz: loud, not silence or noise (its level survives the resampling).
        let last = G711.decode(frames.last!.payload, law: .muLaw).map { Double($0) }
        let rms = (last.map { $0 * $0 }.reduce(0, +) / Double(last.count)).squareRoot()
        #expect(rms > 4000 && rms < 7000, "rms \(rms)")
    }
}
