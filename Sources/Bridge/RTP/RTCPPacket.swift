import Foundation

/// The RTCP this UA sends and reads (RFC 3550 §6): a compound SR or RR with SDES CNAME.
public enum RTCPPacket {
    public struct ReportBlock: Sendable, Equatable {
        public var ssrc: UInt32
        public var fractionLost: UInt8
        public var cumulativeLost: Int32
        public var extendedHighestSequence: UInt32
        public var jitter: UInt32
        public var lastSR: UInt32
        public var delaySinceLastSR: UInt32
    }

    public struct SenderInfo: Sendable, Equatable {
        public var ntp: UInt64
        public var rtpTimestamp: UInt32
        public var packetCount: UInt32
        public var octetCount: UInt32

        /// The middle 32 bits of the NTP timestamp: what a receiver echoes as LSR.
        public var middle32: UInt32 { UInt32((ntp >> 16) & 0xFFFF_FFFF) }
    }

    public struct Parsed: Sendable, Equatable {
        public var ssrc: UInt32
        public var sender: SenderInfo?
        public var reports: [ReportBlock]
        public var cname: String?
    }

    /// NTP time (seconds since 1900 in the high 32 bits, fraction in the low 32).
    public static func ntp(_ date: Date = Date()) -> UInt64 {
        let seconds = date.timeIntervalSince1970 + 2_208_988_800
        let whole = UInt64(seconds)
        return whole << 32 | UInt64((seconds - Double(whole)) * 4_294_967_296)
    }

    /// An SR (when `sender` is given) or RR, followed by SDES with the CNAME.
    public static func compound(ssrc: UInt32, sender: SenderInfo?, reports: [ReportBlock], cname: String) -> [UInt8] {
        var out: [UInt8] = []
        let blocks = Array(reports.prefix(31))
        let words = (sender == nil ? 1 : 6) + blocks.count * 6
        out.append(0x80 | UInt8(blocks.count))
        out.append(sender == nil ? 201 : 200)
        out.appendBigEndian(UInt16(words))
        out.appendBigEndian(ssrc)
        if let sender {
            out.appendBigEndian(UInt32(sender.ntp >> 32)); out.appendBigEndian(UInt32(sender.ntp & 0xFFFF_FFFF))
            out.appendBigEndian(sender.rtpTimestamp); out.appendBigEndian(sender.packetCount); out.appendBigEndian(sender.octetCount)
        }
        for b in blocks {
            out.appendBigEndian(b.ssrc)
            out.append(b.fractionLost)
            let lost = UInt32(bitPattern: max(-0x800000, min(0x7FFFFF, b.cumulativeLost))) & 0xFFFFFF
            out.append(UInt8(lost >> 16)); out.append(UInt8((lost >> 8) & 0xFF)); out.append(UInt8(lost & 0xFF))
            out.appendBigEndian(b.extendedHighestSequence); out.appendBigEndian(b.jitter)
            out.appendBigEndian(b.lastSR); out.appendBigEndian(b.delaySinceLastSR)
        }
        // SDES: one chunk (SSRC, CNAME item, END), padded to 32 bits.
        let name = Array(cname.utf8.prefix(255))
        var chunk: [UInt8] = []
        chunk.appendBigEndian(ssrc)
        chunk.append(1); chunk.append(UInt8(name.count)); chunk += name
        chunk.append(0)
        while chunk.count % 4 != 0 { chunk.append(0) }
        out.append(0x81); out.append(202)
        out.appendBigEndian(UInt16(chunk.count / 4))
        out += chunk
        return out
    }

    /// Reads the first SR or RR of a compound packet, and the CNAME if present. Nil if malformed.
    public static func parse(_ bytes: [UInt8]) -> Parsed? {
        var offset = 0
        var result: Parsed?
        func u32(_ i: Int) -> UInt32 { UInt32(bytes[i]) << 24 | UInt32(bytes[i + 1]) << 16 | UInt32(bytes[i + 2]) << 8 | UInt32(bytes[i + 3]) }
        while offset + 4 <= bytes.count {
            guard bytes[offset] >> 6 == 2 else { return nil }
            let count = Int(bytes[offset] & 0x1F)
            let type = bytes[offset + 1]
            let length = ((Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])) + 1) * 4
            guard offset + length <= bytes.count else { return nil }
            switch type {
            case 200 where result == nil, 201 where result == nil:
                let hasSender = type == 200
                let blocksAt = offset + 8 + (hasSender ? 20 : 0)
                guard blocksAt + count * 24 <= offset + length else { return nil }
                let sender = hasSender ? SenderInfo(ntp: UInt64(u32(offset + 8)) << 32 | UInt64(u32(offset + 12)), rtpTimestamp: u32(offset + 16),
                                                    packetCount: u32(offset + 20), octetCount: u32(offset + 24)) : nil
                let blocks = (0..<count).map { i -> ReportBlock in
                    let b = blocksAt + i * 24
                    let raw = UInt32(bytes[b + 5]) << 16 | UInt32(bytes[b + 6]) << 8 | UInt32(bytes[b + 7])
                    let lost = Int32(bitPattern: raw & 0x800000 != 0 ? raw | 0xFF00_0000 : raw)
                    return ReportBlock(ssrc: u32(b), fractionLost: bytes[b + 4], cumulativeLost: lost, extendedHighestSequence: u32(b + 8),
                                       jitter: u32(b + 12), lastSR: u32(b + 16), delaySinceLastSR: u32(b + 20))
                }
                result = Parsed(ssrc: u32(offset + 4), sender: sender, reports: blocks, cname: nil)
            case 202 where length >= 10:
                if bytes[offset + 8] == 1 {
                    let n = Int(bytes[offset + 9])
                    if offset + 10 + n <= offset + length { result?.cname = String(decoding: bytes[(offset + 10)..<(offset + 10 + n)], as: UTF8.self) }
                }
            default: break
            }
            offset += length
        }
        return result
    }
}
