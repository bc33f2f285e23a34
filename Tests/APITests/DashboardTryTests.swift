import AsyncHTTPClient
import Foundation
import NIOCore
import Testing
import TestLanes
import TestSupport
@testable import API
@testable import Calls
@testable import Realtime

/// "Try it" in headless Chromium with a fake microphone: a WAV of espeak-ng saying "Yes, I can
/// attend." five seconds in, while the agent is still greeting. The agent's greeting reaches the
/// page; the caller's voice silences it there — the server's pause or clear cuts what the page had
/// queued, which a gap in the audio does not count as — and the milliseconds from the voice's onset in the frames the page
/// sends to the agent's audio stopping are printed (`barge_in.min_ms` at its lowest); the words
/// reach the transcript and the stored answer, and the call is stored with `direction: browser`.
@Suite(.serialized, .tags(.realTimeCalls)) struct DashboardTryTests {
    /// 16-bit mono PCM as a WAV file.
    static func wav(_ samples: [Int16], sampleRate: Int) -> Data {
        var d = Data()
        func u32(_ v: Int) { withUnsafeBytes(of: UInt32(v).littleEndian) { d.append(contentsOf: $0) } }
        func u16(_ v: Int) { withUnsafeBytes(of: UInt16(v).littleEndian) { d.append(contentsOf: $0) } }
        d.append(Data("RIFF".utf8)); u32(36 + samples.count * 2); d.append(Data("WAVE".utf8))
        d.append(Data("fmt ".utf8)); u32(16); u16(1); u16(1); u32(sampleRate); u32(sampleRate * 2); u16(2); u16(16)
        d.append(Data("data".utf8)); u32(samples.count * 2)
        samples.withUnsafeBytes { d.append(contentsOf: $0) }
        return d
    }

    @Test func theAgentIsHeardAnsweredAndInterruptedFromTheBrowser() async throws {
        let rate = EspeakSynthesizer.sampleRate
        let words = try await EspeakSynthesizer(voice: "en-us").synthesize("Yes, I can attend.")
        let silence = { (seconds: Double) in [Int16](repeating: 0, count: Int(seconds * Double(rate))) }
        let microphone = FileManager.default.temporaryDirectory.appendingPathComponent("vb-try-\(UUID().uuidString).wav")
        try Self.wav(silence(5) + words + silence(40), sampleRate: rate).write(to: microphone)
        defer { try? FileManager.default.removeItem(at: microphone) }

        let database = Locked<String?>(nil)
        try await DashboardBrowserTests.withBrowser(name: "dashboard-try",
                                                    browserArguments: ["--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream",
                                                                       "--use-file-for-fake-audio-capture=\(microphone.path)", "--autoplay-policy=no-user-gesture-required"],
                                                    // The agent held as soon as the server allows (100 ms of voice): what is timed here
                                                    // is the way from the microphone to the agent's audio stopping on the page.
                                                    configure: { $0.engine.bargeIn.minMilliseconds = 100 },
                                                    before: { config in database.withLock { $0 = config.database.path } }) { browser, port in
            let root = "http://127.0.0.1:\(port)/"
            var create = HTTPClientRequest(url: root + "api/templates")
            create.method = .POST
            create.headers.add(name: "Content-Type", value: "application/json")
            // A long greeting: the caller's words five seconds in come while the agent still speaks.
            create.body = .bytes(ByteBuffer(string: #"{"name":"planning","purpose":"the quarterly planning meeting of the product team, tomorrow at two in the afternoon, in the large conference room on the third floor","questions":["Can you attend?"]}"#))
            #expect(try await HTTPClient.shared.execute(create, timeout: .seconds(10)).status == .created)

            try await browser.navigate(root + "#/templates")
            try await browser.execute("localStorage.setItem('vb.lang', 'en');")
            try await browser.navigate(root + "#/templates")
            try await browser.wait(for: "document.querySelector('li[data-name=planning] [data-action=try]')")
            try await browser.click("li[data-name=planning] [data-action=try]")
            try await browser.wait(for: "document.querySelector('#try-what')?.textContent === 'Template: planning'")
            try await browser.click("#try-start")

            // The greeting plays on the page, the caller's voice cuts it, and its words come back.
            try await browser.wait(for: "window.__try && window.__try.agentSamples >= 8000 && window.__try.agentRms > 0.01", timeout: .seconds(20))
            // The verdict: the server's pause (or clear) silenced the page while the caller spoke over
            // the agent. Only those end a barge-in on the page; the queue running dry (audio late on
            // a loaded machine: 137 ms in once beside make test's timed suites) is a gap, not one,
            // and a caller who starts talking in a gap under 300 ms talks over the agent. (CI, 3 Dec,
            // counted no barge-in in a call that otherwise went through; its cause was not seen, so
            // a miss now prints what the page saw.)
            do {
                try await browser.wait(for: "window.__try.bargeIns.length > 0", timeout: .seconds(20))
            } catch {
                // What the page saw — the caller's onsets, the agent's silences and their causes —
                // so that a miss under load can be read from the one failing line.
                let seen = try? await browser.execute("return JSON.stringify(window.__try);") as? String
                Issue.record("no barge-in on the page; it saw: \(seen ?? "nothing")")
                throw error
            }
            try await browser.wait(for: "[...document.querySelectorAll('#try-transcript li')].some(li => li.dataset.speaker === 'caller')", timeout: .seconds(20))
            try await browser.screenshot(to: "\(DashboardBrowserTests.artifacts)/dashboard-try.png")
            let cut = try await browser.execute("return window.__try.bargeIns[0];") as? [String: Any] ?? [:]
            let bargeIn = cut["ms"] as? Int ?? .max, cause = cut["cause"] as? String ?? "none", queued = cut["queuedMs"] as? Int ?? 0
            let gaps = try await browser.execute("return window.__try.silences.filter(s => s.cause === 'played out').length;") as? Int ?? 0
            print("Try it: the agent fell silent on the page \(bargeIn) ms after the caller started talking over it (\(cause), \(queued) ms of its audio cut; \(gaps) gaps before)")
            // The milliseconds are printed, not bounded tightly: 140–240 alone here, 396 once beside
            // the timed suites of `make test` (issue 57: a latency is a bench figure — the `barge-in`
            // suite's — not a bound the machine's load moves). This bound only catches a hold that
            // came while the greeting still had seconds to go, but not for the caller's voice.
            #expect(bargeIn <= 2_000, "the agent stopped \(bargeIn) ms after the caller started (\(cause))")
            try await browser.wait(for: "document.querySelector('#try-status').textContent === 'The call is over.'", timeout: .seconds(60))
            #expect(try await browser.execute("return window.__try.marks;") as? Int ?? 0 > 0, "played audio is echoed as marks")
            let id = try await browser.execute("return document.querySelector('#try-report').getAttribute('href');") as? String ?? ""
            #expect(id.hasPrefix("#/calls/br-"), "\(id)")
        }
        let store = try CallStore(path: try #require(database.value))
        let calls = try await store.page(states: nil, limit: 10, offset: 0).calls
        let call = try #require(calls.first { $0.direction == .browser })
        #expect(call.state == .completed && call.calleeNumber == "browser", "\(call.state) \(call.calleeNumber)")
        let answers = try await store.answers(callID: call.outboundId)
        #expect(answers.map(\.status) == [.answered] && answers.first?.answerSummary == "yes", "\(answers)")
        let transcript = try await store.transcript(callID: call.outboundId)
        #expect(transcript.contains { $0.entry.speaker == .customer && $0.entry.text.lowercased().hasPrefix("yes") }, "\(transcript.map(\.entry.text))")
    }
}
