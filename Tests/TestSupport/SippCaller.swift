import Foundation

/// UAC scenarios: sipp calls VoiceBridge.
public enum SippCaller {
    /// Sends an INVITE whose SDP offers `formats` and expects the final `status`, then ACKs it.
    public static func invite(expecting status: Int, sdpFormats: String = "0 8 101") -> String {
        Sipp.scenarioHeader("invite expecting \(status)") + """
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

    public static let options = Sipp.scenarioHeader("options") + """
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
