import Foundation
import Glibc

/// Runs sipp (Debian `sip-tester`) as a real peer on 127.0.0.1, always bounded: one call, a
/// timeout inside sipp and another around it, no stdin.
struct Sipp {
    struct Result { var status: Int32; var output: String }

    let process = Process()
    let outputFile: URL

    /// Starts `sipp` with `arguments`; `scenario` (XML) is written to a temporary file and passed with -sf.
    init(scenario: String? = nil, arguments: [String], seconds: Int = 40) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sipp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        var args = ["\(seconds)", "sipp", "-m", "1", "-nostdin", "-timeout", "\(seconds - 5)s", "-timeout_error", "-trace_err",
                    "-error_file", dir.appendingPathComponent("errors.log").path]
        if let scenario {
            let file = dir.appendingPathComponent("scenario.xml")
            try scenario.write(to: file, atomically: true, encoding: .utf8)
            args += ["-sf", file.path]
        }
        args += arguments
        outputFile = dir.appendingPathComponent("output.log")
        FileManager.default.createFile(atPath: outputFile.path, contents: nil)
        let handle = try FileHandle(forWritingTo: outputFile)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        process.arguments = args
        process.standardOutput = handle
        process.standardError = handle
        process.currentDirectoryURL = dir
        try process.run()
    }

    func wait() async -> Result {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                process.waitUntilExit()
                let text = (try? String(contentsOf: outputFile, encoding: .utf8)) ?? ""
                let errors = (try? String(contentsOf: outputFile.deletingLastPathComponent().appendingPathComponent("errors.log"), encoding: .utf8)) ?? ""
                continuation.resume(returning: Result(status: process.terminationStatus, output: text + errors))
            }
        }
    }

    static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/sipp") }
}

/// A UDP port nobody is using right now on 127.0.0.1.
func freeUDPPort() -> Int {
    let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
    _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// UAS scenarios, one per behaviour (sipp wants literal status codes).
enum SippScenario {
    static func header(_ name: String) -> String { "<?xml version=\"1.0\" encoding=\"ISO-8859-1\" ?>\n<scenario name=\"\(name)\">\n" }

    static let echoes = """
        [last_Via:]
        [last_From:]
        [last_To:];tag=[pid]SIPpTag01[call_number]
        [last_Call-ID:]
        [last_CSeq:]
    """

    /// Answers INVITE with `status` (486, 603, …), then takes the ACK.
    static func reject(_ status: String) -> String {
        header("reject \(status)") + """
          <recv request="INVITE"/>
          <send><![CDATA[
        SIP/2.0 \(status)
        \(echoes)
        Content-Length: 0

        ]]></send>
          <recv request="ACK"/>
        </scenario>
        """
    }

    /// Rings forever; on CANCEL answers 200 and ends the INVITE with 487.
    static let ringForever = header("ring forever") + """
          <recv request="INVITE"/>
          <send><![CDATA[
        SIP/2.0 100 Trying
        \(echoes)
        Content-Length: 0

        ]]></send>
          <send><![CDATA[
        SIP/2.0 180 Ringing
        \(echoes)
        Contact: <sip:[local_ip]:[local_port]>
        Content-Length: 0

        ]]></send>
          <recv request="CANCEL"/>
          <send><![CDATA[
        SIP/2.0 200 OK
        \(echoes)
        Content-Length: 0

        ]]></send>
          <send><![CDATA[
        SIP/2.0 487 Request Terminated
        [last_Via:]
        [last_From:]
        [last_To:];tag=[pid]SIPpTag01[call_number]
        [last_Call-ID:]
        CSeq: [cseq] INVITE
        Content-Length: 0

        ]]></send>
          <recv request="ACK"/>
        </scenario>
        """

    /// Demands digest credentials (401 with WWW-Authenticate, or 407 with Proxy-Authenticate),
    /// answers 200 only if they are right (403 otherwise), then waits for our BYE.
    ///
    /// sipp's `verifyauth` checks the digest cryptographically but reads only `Authorization`, so
    /// the 401 form is verified by sipp itself; the 407 form checks that `Proxy-Authorization`
    /// carries a digest response for the right user and realm (the computation is the same code,
    /// checked against RFC 2617's example in DigestAuthenticationTests).
    static func digestAuth(proxy: Bool, username: String, password: String) -> String {
        let check = proxy
            ? """
              <ereg regexp="Digest username=\\"\(username)\\", realm=\\"voicebridge.test\\".*response=\\"[0-9a-f]{32}\\"" search_in="hdr" header="Proxy-Authorization:" check_it="false" assign_to="authvalid"/>
            """
            : """
              <verifyauth assign_to="authvalid" username="\(username)" password="\(password)"/>
            """
        return header("digest auth") + """
          <recv request="INVITE"/>
          <send><![CDATA[
        SIP/2.0 \(proxy ? "407 Proxy Authentication Required" : "401 Unauthorized")
        \(echoes)
        \(proxy ? "Proxy-Authenticate" : "WWW-Authenticate"): Digest realm="voicebridge.test", nonce="6a9c0e1f3b8d4c2a", qop="auth", algorithm=MD5
        Content-Length: 0

        ]]></send>
          <recv request="ACK"/>
          <recv request="INVITE">
            <action>
        \(check)
            </action>
          </recv>
          <nop next="goodauth" test="authvalid"/>
          <send><![CDATA[
        SIP/2.0 403 Forbidden
        \(echoes)
        Content-Length: 0

        ]]></send>
          <recv request="ACK" next="end"/>
          <label id="goodauth"/>
          <send retrans="500"><![CDATA[
        SIP/2.0 200 OK
        \(echoes)
        Contact: <sip:[local_ip]:[local_port]>
        Content-Type: application/sdp
        Content-Length: [len]

        v=0
        o=user1 53655765 2353687637 IN IP4 [local_ip]
        s=-
        c=IN IP4 [media_ip]
        t=0 0
        m=audio [media_port] RTP/AVP 0
        a=rtpmap:0 PCMU/8000

        ]]></send>
          <recv request="ACK"/>
          <recv request="BYE"/>
          <send><![CDATA[
        SIP/2.0 200 OK
        \(echoes)
        Content-Length: 0

        ]]></send>
          <label id="end"/>
        </scenario>
        """
    }
}

/// UAC scenarios: sipp calls VoiceBridge.
enum SippCaller {
    /// Sends an INVITE whose SDP offers `formats` and expects the final `status`, then ACKs it.
    static func invite(expecting status: Int, sdpFormats: String = "0 8 101") -> String {
        SippScenario.header("invite expecting \(status)") + """
          <send retrans="500"><![CDATA[
        INVITE sip:[service]@[remote_ip]:[remote_port] SIP/2.0
        Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]
        From: sipp <sip:0701234@[local_ip]:[local_port]>;tag=[pid]SIPpTag00[call_number]
        To: <sip:[service]@[remote_ip]:[remote_port]>
        Call-ID: [call_id]
        CSeq: 1 INVITE
        Contact: sip:sipp@[local_ip]:[local_port]
        Max-Forwards: 70
        Content-Type: application/sdp
        Content-Length: [len]

        v=0
        o=user1 53655765 2353687637 IN IP4 [local_ip]
        s=-
        c=IN IP4 [media_ip]
        t=0 0
        m=audio [media_port] RTP/AVP \(sdpFormats)
        a=rtpmap:18 G729/8000

        ]]></send>
          <recv response="100" optional="true"/>
          <recv response="\(status)"/>
          <send><![CDATA[
        ACK sip:[service]@[remote_ip]:[remote_port] SIP/2.0
        Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]
        From: sipp <sip:0701234@[local_ip]:[local_port]>;tag=[pid]SIPpTag00[call_number]
        To: <sip:[service]@[remote_ip]:[remote_port]>[peer_tag_param]
        Call-ID: [call_id]
        CSeq: 1 ACK
        Content-Length: 0

        ]]></send>
        </scenario>
        """
    }

    static let options = SippScenario.header("options") + """
          <send retrans="500"><![CDATA[
        OPTIONS sip:[service]@[remote_ip]:[remote_port] SIP/2.0
        Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]
        From: sipp <sip:sipp@[local_ip]:[local_port]>;tag=[pid]SIPpTag00[call_number]
        To: <sip:[service]@[remote_ip]:[remote_port]>
        Call-ID: [call_id]
        CSeq: 1 OPTIONS
        Max-Forwards: 70
        Content-Length: 0

        ]]></send>
          <recv response="200"/>
        </scenario>
        """
}
