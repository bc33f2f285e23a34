import Foundation
import Logging
import Pipeline
import Testing
import TestLanes
import TestSupport
@testable import Calls
@testable import Realtime

/// `transfer.mode: warm` over real SIP: the caller asks for a person; VoiceBridge calls the person
/// (sipp) itself while the caller holds, briefs them with the local voice, and bridges the caller
/// when the person says "Yes, I will." (espeak's words as an A-law RTP capture sipp plays, heard
/// by the offline recognizer) — or, on key 2 (RFC 4733, sipp's own DTMF capture), hangs up on
/// the person and the agent goes on with the caller.
@Suite(.tags(.realTimeCalls)) struct WarmTransferTests {
    /// A person who answers (PCMA), listens for `listen` ms, then says yes (`digit` 1 with the
    /// capture at `yes`) or presses `digit`; having accepted they speak — sipp's own 7 s A-law
    /// recording — (or, `speaks` false, stay 9 s on the line: run with -rtp_echo, they say back
    /// what they hear) and hang up; having declined (2) they wait for our BYE.
    static func person(digit: Int, yes: String?, listen: Int = 4000, speaks: Bool = true) -> String {
        let answer = digit == 1 && yes != nil ? yes! : "/usr/share/sip-tester/dtmf_2833_\(digit).pcap"
        let talk = speaks ? """
            <pause milliseconds="4000"/>
            <nop><action><exec play_pcap_audio="/usr/share/sip-tester/g711a.pcap"/></action></nop>
            <pause milliseconds="7500"/>
            """ : #"<pause milliseconds="9000"/>"#
        let ending = digit == 1 ? """
            \(talk)
            <send retrans="500"><![CDATA[
            BYE sip:[$contact] SIP/2.0
            Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]
            From: <sip:person@[local_ip]:[local_port]>;tag=[pid]warm[call_number]
            To: [$caller]
            Call-ID: [call_id]
            CSeq: 2 BYE
            Max-Forwards: 70
            Content-Length: 0

            ]]></send>
            <recv response="200"/>
            """ : """
            <recv request="BYE"/>
            <send><![CDATA[
            SIP/2.0 200 OK
            [last_Via:]
            [last_From:]
            [last_To:]
            [last_Call-ID:]
            [last_CSeq:]
            Content-Length: 0

            ]]></send>
            """
        return Sipp.scenarioHeader("warm transfer person") + """
            <recv request="INVITE">
              <action>
                <ereg regexp=".*" search_in="hdr" header="From:" assign_to="caller"/>
                <ereg regexp="sip:([^>;]*)" search_in="hdr" header="Contact:" assign_to="trash,contact"/>
              </action>
            </recv>
            <send><![CDATA[
            SIP/2.0 200 OK
            [last_Via:]
            [last_From:]
            [last_To:];tag=[pid]warm[call_number]
            [last_Call-ID:]
            [last_CSeq:]
            Contact: <sip:person@[local_ip]:[local_port]>
            Content-Type: application/sdp
            Content-Length: [len]

            v=0
            o=person 1 1 IN IP4 [local_ip]
            s=-
            c=IN IP4 [media_ip]
            t=0 0
            m=audio [media_port] RTP/AVP 8 101
            a=rtpmap:8 PCMA/8000
            a=rtpmap:101 telephone-event/8000
            a=fmtp:101 0-15

            ]]></send>
            <recv request="ACK"/>
            <pause milliseconds="\(listen)"/>
            <nop><action><exec play_pcap_audio="\(answer)"/></action></nop>
            \(ending)
            <Reference variables="\(digit == 1 ? "trash" : "trash,caller,contact")"/>
            </scenario>
            """
    }

    @Test(arguments: [1, 2]) func thePersonIsBriefedAndTheCallerBridgedOnlyWhenTheyAccept(digit: Int) async throws {
        try #require(Sipp.isInstalled)
        let personPort = freeSippPort()
        let (tts, recognizer) = try #require(CallHarness.speech)
        let yes = NSTemporaryDirectory() + "person-yes-\(UUID().uuidString).pcap"
        defer { try? FileManager.default.removeItem(atPath: yes) }
        let words = try await LocalVoice(tts: tts).frames(saying: "Yes, I will.").flatMap(\.samples)
        // A phone keeps sending after the words: a second of line silence ends the utterance.
        try RTPCapture.write(G711.encode(words + [Int16](repeating: 0, count: 8000), law: .aLaw), payloadType: 8, to: yes)
        // What `transfer.mode: warm` gives the session, built as the server builds it (the shared recognizer).
        var config = VoiceBridgeConfig()
        config.transfer.mode = .warm
        var warm = try #require(try CallSystem.warmTransfer(config, recognizer: recognizer, logger: Logger(label: "test")))
        warm.acceptWithin = .seconds(15)
        // Declining, the person listens 8 s: the caller's answer to "I will connect you…" (its
        // script's next line, a second request for a person) must come while it holds — its ear
        // may take 4 s under load, and said after the apology it would be a second transfer.
        let person = try Sipp(scenario: Self.person(digit: digit, yes: yes, listen: digit == 1 ? 4000 : 8000), arguments: ["-i", "127.0.0.1", "-p", "\(personPort)", "-mp", "\(freeSippMediaPort())"],
                              seconds: 60)
        try await person.listening(on: personPort)
        try await CallHarness.run(tweak: { $0.warmTransfer = warm }) { manager, store, _ in
            let answers = ["Please connect me to an operator.", "I want to talk to a real person.", "<silence>", "<silence>", "Yes, I can attend.", "<silence>"]
            var request = CallHarness.seedRequest(answers: answers, questions: ["Can you attend?"], callee: "010987670\(digit)")
            request.transferTo = "sip:desk@127.0.0.1:\(personPort)"
            let id = try await manager.create(request).outboundId
            let call = try await CallHarness.waitFor(store, id, timeout: .seconds(80)) { $0.state.isTerminal }
            let entries = try await store.transcript(callID: id).map(\.entry)
            let lines = entries.map(\.text)
            if digit == 1 {
                #expect(call.state == .completed && call.failureReason == "transferred" && call.transferOutcome == "answered",
                        "\(call.state) \(call.failureReason ?? "") \(String(describing: call.transferOutcome)) \(lines)")
                #expect(lines.contains { $0.hasPrefix("[Briefing for the person: Hello, this is the AI assistant") && $0.hasSuffix("Say yes or press 1 to take the call; say no or press 2 to decline.]") },
                        "\(lines)")
                #expect(lines.contains { $0.hasPrefix("[The person said: Yes") }, "accepted by voice: \(lines)")
                let bridged = try #require(entries.first { $0.text == "[Transfer answered, warm: the person accepted]" }, "\(lines)")
                // The person's words reach the caller: on the agent's channel of the recording after the bridge came up.
                let recording = try WAVFile.read(URL(fileURLWithPath: try #require(try await store.recordingPath(callID: id))))
                let after = recording.channel(1).dropFirst(Int(bridged.timestamp * 8000) + 4000)
                let loud = after.filter { abs(Int($0)) > 1000 }.count
                #expect(loud > 2000, "the person is heard after the bridge: \(loud) loud samples of \(after.count) (bridged at \(bridged.timestamp) s of \(recording.channel(1).count / 8000) s)")
            } else {
                #expect(call.state == .completed && call.transferOutcome == "declined", "\(call.state) \(String(describing: call.transferOutcome)) \(lines)")
                let declined = try #require(entries.first { $0.text == "[Transfer declined, warm]" }, "\(lines)")
                let back = try #require(entries.first { $0.speaker == .ai && $0.text.contains("nobody can take your call right now") }, "\(lines)")
                #expect(back.timestamp - declined.timestamp <= 2, "the agent is back within 2 s of the decline: \(back.timestamp - declined.timestamp) s")
                #expect(back.text.hasSuffix("Let's continue. Can you attend?"), "and goes on with the question: \(back.text)")
            }
        }
        let sipp = await person.wait()
        #expect(sipp.status == 0, "the person's side ran its whole scenario: \(sipp.output.suffix(600))")
    }
}
