import Foundation

/// Runs baresip (Debian `baresip-core`) headless on 127.0.0.1: it plays a WAV as its microphone
/// and records what it hears (sndfile module), and quits after `seconds`.
public struct Baresip: @unchecked Sendable {
    let process = Process()
    let folder: URL
    public let sipPort: Int

    /// `microphone`: an 8 kHz mono WAV; `answer`: auto-answer incoming calls (to `user`); `dial`: a URI to call.
    /// `tls`: SIP over TLS with this certificate (baresip listens for TLS on `sipPort + 1`);
    /// `mediaenc`: baresip's media encryption (`srtp`, `srtp-mand`), through its srtp module.
    public init(microphone: URL, answer: Bool = false, dial: String? = nil, user: String = "bare", seconds: Int = 20, rtpPorts: ClosedRange<Int>,
                tls: TLSCertificate? = nil, mediaenc: String? = nil) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("baresip-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        sipPort = freeBaresipPort()
        let config = """
            sip_listen 127.0.0.1:\(sipPort)
            audio_player aubridge,nil
            audio_source aufile,\(microphone.path)
            audio_alert aubridge,nil
            ausrc_srate 8000
            auplay_srate 8000
            rtp_ports \(rtpPorts.lowerBound)-\(rtpPorts.upperBound)
            module_path /usr/lib/baresip/modules
            module g711.so
            module aufile.so
            module aubridge.so
            module sndfile.so
            \(mediaenc == nil ? "" : "module srtp.so")
            \(tls.map { "sip_certificate \($0.combined)\nsip_cafile \($0.certificate)" } ?? "")
            module_app account.so
            module_app menu.so
            snd_path \(folder.path)
            """
        try config.write(to: folder.appendingPathComponent("config"), atomically: true, encoding: .utf8)
        let account = "<sip:\(user)@127.0.0.1\(tls == nil ? "" : ";transport=tls")>;regint=0;audio_codecs=PCMU,PCMA"
            + (answer ? ";answermode=auto" : "") + (mediaenc.map { ";mediaenc=\($0)" } ?? "") + "\n"
        try account.write(to: folder.appendingPathComponent("accounts"), atomically: true, encoding: .utf8)
        var arguments = ["\(seconds + 5)", "baresip", "-f", folder.path, "-t", "\(seconds)"]
        if let dial { arguments += ["-e", "/dial \(dial)"] }
        process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        process.arguments = arguments
        let log = folder.appendingPathComponent("baresip.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.runWithSignalsUnblocked()
    }

    /// Ends baresip (it hangs up its calls), within 2 s.
    public func stop() async {
        await process.stopGroup()
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async { process.waitUntilExit(); c.resume() }
        }
    }

    public var log: String { (try? String(contentsOf: folder.appendingPathComponent("baresip.log"), encoding: .utf8)) ?? "" }

    /// What baresip decoded from the call (sndfile's `dump-…-dec.wav`).
    public func decodedRecording() -> URL? {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return files.first { $0.hasPrefix("dump-") && $0.hasSuffix("-dec.wav") }.map { folder.appendingPathComponent($0) }
    }

    public static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/baresip") }

    /// `input` padded with `before`/`after` seconds of silence (sox), so the call outlives the speech;
    /// with `sampleRate`, also made mono at that rate.
    public static func padded(_ input: URL, before: Double, after: Double, sampleRate: Int? = nil) async throws -> URL {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("padded-\(UUID().uuidString).wav")
        let format = sampleRate.map { ["-r", "\($0)", "-c", "1"] } ?? []
        try await offThePool {
            let sox = Process()
            sox.executableURL = URL(fileURLWithPath: "/usr/bin/sox")
            sox.arguments = [input.path] + format + [output.path, "pad", "\(before)", "\(after)"]
            try sox.run()
            sox.waitUntilExit()
        }
        return output
    }
}
