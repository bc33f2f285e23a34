/// An RTP packet (RFC 3550 §5.1): 12-byte header, optional CSRCs and extension, payload, padding.
public struct RTPPacket: Sendable, Equatable {
    public var marker: Bool
    public var payloadType: UInt8
    public var sequenceNumber: UInt16
    public var timestamp: UInt32
    public var ssrc: UInt32
    public var csrcs: [UInt32]
    public var payload: [UInt8]

    public init(marker: Bool = false, payloadType: UInt8, sequenceNumber: UInt16, timestamp: UInt32, ssrc: UInt32, csrcs: [UInt32] = [], payload: [UInt8]) {
        self.marker = marker
        self.payloadType = payloadType
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.ssrc = ssrc
        self.csrcs = csrcs
        self.payload = payload
    }

    public enum Failure: Error, Equatable {
        case tooShort(Int)
        case unsupportedVersion(UInt8)
        case truncatedHeader
        case invalidPadding
        /// An RTCP packet on the RTP port (rtcp-mux range, RFC 5761).
        case isRTCP
    }

    public init<Bytes: RandomAccessCollection>(parsing bytes: Bytes) throws(Failure) where Bytes.Element == UInt8, Bytes.Index == Int {
        let base = bytes.startIndex
        guard bytes.count >= 12 else { throw .tooShort(bytes.count) }
        let b0 = bytes[base], b1 = bytes[base + 1]
        guard b0 >> 6 == 2 else { throw .unsupportedVersion(b0 >> 6) }
        guard !(192...223).contains(b1) else { throw .isRTCP }
        let csrcCount = Int(b0 & 0x0F)
        var offset = 12 + csrcCount * 4
        guard bytes.count >= offset else { throw .truncatedHeader }
        if b0 & 0x10 != 0 {   // header extension: 4-byte header, then length × 4 bytes
            guard bytes.count >= offset + 4 else { throw .truncatedHeader }
            let words = Int(bytes[base + offset + 2]) << 8 | Int(bytes[base + offset + 3])
            offset += 4 + words * 4
            guard bytes.count >= offset else { throw .truncatedHeader }
        }
        var end = bytes.count
        if b0 & 0x20 != 0 {
            let padding = Int(bytes[base + bytes.count - 1])
            guard padding > 0, end - padding >= offset else { throw .invalidPadding }
            end -= padding
        }
        func u32(_ i: Int) -> UInt32 {
            UInt32(bytes[base + i]) << 24 | UInt32(bytes[base + i + 1]) << 16 | UInt32(bytes[base + i + 2]) << 8 | UInt32(bytes[base + i + 3])
        }
        marker = b1 & 0x80 != 0
        payloadType = b1 & 0x7F
        sequenceNumber = UInt16(bytes[base + 2]) << 8 | UInt16(bytes[base + 3])
        timestamp = u32(4)
        ssrc = u32(8)
        csrcs = (0..<csrcCount).map { u32(12 + $0 * 4) }
        payload = Array(bytes[(base + offset)..<(base + end)])
    }

    public func serialized() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(12 + csrcs.count * 4 + payload.count)
        out.append(0x80 | UInt8(csrcs.count & 0x0F))
        out.append((marker ? 0x80 : 0) | (payloadType & 0x7F))
        out.append(UInt8(sequenceNumber >> 8)); out.append(UInt8(sequenceNumber & 0xFF))
        out.appendBigEndian(timestamp)
        out.appendBigEndian(ssrc)
        for csrc in csrcs { out.appendBigEndian(csrc) }
        out.append(contentsOf: payload)
        return out
    }
}

extension Array where Element == UInt8 {
    mutating func appendBigEndian(_ value: UInt32) {
        append(UInt8(value >> 24)); append(UInt8((value >> 16) & 0xFF)); append(UInt8((value >> 8) & 0xFF)); append(UInt8(value & 0xFF))
    }

    mutating func appendBigEndian(_ value: UInt16) {
        append(UInt8(value >> 8)); append(UInt8(value & 0xFF))
    }
}
