import Pipeline

/// The leg's outbound side: audio paced onto the socket from the shared media tick, and — for a
/// dialect without marks of its own (Vonage's) — marks echoed when the leg's own count says the
/// audio before them has played.
extension MediaStreamSocketLeg {
    /// Counts `frames` more of the provider's buffer played for each mark the leg counts itself
    /// (a dialect without marks of its own); returns those now played, in order.
    private static func countPlayed(_ marks: inout [(name: String, framesAhead: Int)], frames: Int = 1) -> [String] {
        var played: [String] = []
        for i in marks.indices { marks[i].framesAhead -= frames }
        while let first = marks.first, first.framesAhead <= 0 {
            played.append(first.name)
            marks.removeFirst()
        }
        return played
    }

    /// Paces outbound audio onto the socket from the shared media tick until the stream ends.
    ///
    /// Twilio buffers what it is sent and plays it out on its own clock, so the stream is written
    /// every third tick, with as many frames as keep Twilio's buffer at `maximumBufferedFrames`:
    /// five when a response starts, then three a write. A third of the socket writes (each a
    /// system call, the largest cost per stream), never more than 100 ms ahead of playout, and at
    /// least 40 ms in Twilio's buffer, so a write that is late by less than that is not heard.
    /// Streams take the three ticks in turn as they register: each tick writes to a third of them.
    public func run() async {
        // A browser plays what it gets at once and is one page, not thousands of streams: written
        // every tick, two frames ahead, so a barge-in's clear has little left to cut.
        let n = dialect == .browser ? 1 : Self.framesPerWrite
        let ahead = dialect == .browser ? 2 : Self.maximumBufferedFrames
        let ticker = scheduler.register { [self] in
            var played: [String] = []
            guard let (room, buffered) = state.withLock({ s -> (Int, Int)? in
                guard !s.finished else { return nil }
                s.ticks &+= 1
                s.twilioBuffered = max(0, s.twilioBuffered - 1)
                if !s.countedMarks.isEmpty { played = Self.countPlayed(&s.countedMarks) }
                return (s.ticks % n == 0 ? ahead - s.twilioBuffered : 0, s.twilioBuffered)
            }) else { return false }
            for name in played { continuation.yield(.mark(name)) }
            guard room > 0 else { return true }
            var messages: [OutboundMessage] = []
            var frames = 0
            var counted: [(name: String, framesAhead: Int)] = []
            // Most writes of most streams send nothing: the stream's identity is read only when
            // there is something to send, and once per write.
            var identity: (sid: String, prefix: [UInt8], widener: VonageDialect.Widener?)?
            for _ in 0..<room {
                var produced = false
                pacer.tick { output in
                    produced = true
                    if identity == nil { identity = state.withLock { ($0.streamSid, $0.mediaPrefix, $0.widener) } }
                    switch output {
                    case .audio(let frame, _) where dialect.carriesBinaryAudio:
                        messages.append(OutboundMessage(media: VonageDialect.audio(frame, widener: &identity!.widener), binary: true))
                        frames += 1
                    case .audio(let frame, _):
                        messages.append(OutboundMessage(media: dialect.encodeMedia(frame, prefix: identity!.prefix)))
                        frames += 1
                    case .mark(let name):
                        if let mark = dialect.encodeCommand(.mark(name), streamSid: identity!.sid) {
                            messages.append(OutboundMessage(mark))
                        } else {
                            counted.append((name, buffered + frames))
                        }
                    }
                }
                if !produced { break }   // nothing queued (the usual case)
            }
            if frames > 0 || !counted.isEmpty || identity?.widener != nil {
                let now: [String] = state.withLock { s in
                    s.twilioBuffered += frames
                    if let widener = identity?.widener { s.widener = widener }
                    s.countedMarks += counted
                    return Self.countPlayed(&s.countedMarks, frames: 0)
                }
                for name in now { continuation.yield(.mark(name)) }
            }
            if !messages.isEmpty { socket.send(messages) }
            return true
        }
        state.withLock { $0.ticks = ticker % n }
        defer { scheduler.unregister(ticker) }
        for await _ in ended {}
    }
}
