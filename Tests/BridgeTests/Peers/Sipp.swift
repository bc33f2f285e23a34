import Foundation
import TestSupport

/// UAS scenarios, one per behaviour (sipp wants literal status codes).
enum SippScenario {

    static let echoes = """
        [last_Via:]
        [last_From:]
        [last_To:];tag=[pid]SIPpTag01[call_number]
        [last_Call-ID:]
        [last_CSeq:]
    """

    /// Answers INVITE with `status` (486, 603, …), then takes the ACK.
    static func reject(_ status: String) -> String {
        Sipp.scenarioHeader("reject \(status)") + """
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
    static let ringForever = Sipp.scenarioHeader("ring forever") + """
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
        return Sipp.scenarioHeader("digest auth") + """
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
