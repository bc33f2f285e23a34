import Foundation

/// Writes G.711 audio as a classic libpcap file of RTP packets (Ethernet, IPv4, UDP), 20 ms
/// apart, so that sipp's `play_pcap_audio` can speak it on a call: a test's own words, where
/// sipp ships only DTMF and one recording.
public enum RTPCapture {
    /// `payload`: G.711 bytes (8 kHz), sent as packets of 160 with `payloadType` (0 PCMU, 8 PCMA).
    public static func write(_ payload: [UInt8], payloadType: UInt8, to path: String) throws {
        func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) } }
        func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func be16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
        func be32(_ v: UInt32) -> [UInt8] { (0..<4).reversed().map { UInt8((v >> (8 * $0)) & 0xFF) } }
        // Global header: magic, version 2.4, zone 0, sigfigs 0, snaplen, Ethernet.
        var file = le32(0xA1B2_C3D4) + le16(2) + le16(4) + le32(0) + le32(0) + le32(65_535) + le32(1)
        for (index, start) in stride(from: 0, to: payload.count - 159, by: 160).enumerated() {
            let rtp = [0x80, payloadType] + be16(UInt16(truncatingIfNeeded: index)) + be32(UInt32(index * 160)) + be32(0x5EED_0001)
                + Array(payload[start..<start + 160])
            let udp = be16(6000) + be16(6002) + be16(UInt16(8 + rtp.count)) + be16(0) + rtp
            let ip = [0x45, 0] + be16(UInt16(20 + udp.count)) + be16(0) + be16(0) + [64, 17] + be16(0)
                + [127, 0, 0, 1] + [127, 0, 0, 1] + udp
            let frame = [UInt8](repeating: 0, count: 12) + be16(0x0800) + ip
            let microseconds = index * 20_000
            file += le32(UInt32(microseconds / 1_000_000)) + le32(UInt32(microseconds % 1_000_000)) + le32(UInt32(frame.count)) + le32(UInt32(frame.count)) + frame
        }
        try Data(file).write(to: URL(fileURLWithPath: path))
    }
}
