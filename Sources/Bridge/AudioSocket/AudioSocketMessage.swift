import Foundation
import NIOCore

/// One message of Asterisk's AudioSocket protocol (the `AudioSocket()` dialplan application and
/// `chan_audiosocket`): a kind byte, the payload's length (16 bits, big-endian), the payload.
/// Both sides speak it over one TCP connection; Asterisk connects, and sends the call's UUID first.
public enum AudioSocketMessage: Sendable, Equatable {
    /// `0x00`: the call is over, from either side (closing the socket says the same).
    case hangUp
    /// `0x01`: the call's UUID, 16 bytes in binary form: Asterisk's first message.
    case uuid(UUID)
    /// `0x03`: a key the caller pressed, one ASCII byte.
    case dtmf(Character)
    /// `0x10`: signed linear 16-bit little-endian mono at 8 kHz (320 bytes are 20 ms).
    case audio([Int16])
    /// `0xff`: the peer's error, with its application's code when it sent one.
    case error(code: UInt8?)

    /// Why a message cannot be taken; the connection is closed with it.
    public struct Malformed: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// What a message with this kind and payload is.
    public static func parse(kind: UInt8, payload: ByteBuffer) throws(Malformed) -> AudioSocketMessage {
        var payload = payload
        switch kind {
        case 0x00:
            return .hangUp
        case 0x01:
            guard payload.readableBytes == 16, let bytes = payload.readBytes(length: 16) else {
                throw Malformed(description: "a UUID message carries 16 bytes, not \(payload.readableBytes)")
            }
            return .uuid(UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                                     bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15])))
        case 0x03:
            guard payload.readableBytes == 1, let byte = payload.readInteger(as: UInt8.self),
                  let key = Self.keys.first(where: { $0.asciiValue == byte }) else {
                throw Malformed(description: "a DTMF message carries one of 0-9 * # A-D")
            }
            return .dtmf(key)
        case 0x10:
            guard payload.readableBytes % 2 == 0 else { throw Malformed(description: "audio of an odd number of bytes (\(payload.readableBytes))") }
            var samples = [Int16]()
            samples.reserveCapacity(payload.readableBytes / 2)
            while let sample = payload.readInteger(endianness: .little, as: Int16.self) { samples.append(sample) }
            return .audio(samples)
        case 0x11...0x18:
            throw Malformed(description: String(format: "audio of kind 0x%02x (a rate above 8 kHz) is not spoken here: send signed linear at 8 kHz (0x10)", kind))
        case 0xff:
            return .error(code: payload.readInteger(as: UInt8.self))
        default:
            throw Malformed(description: String(format: "no message has kind 0x%02x", kind))
        }
    }

    /// The keys a DTMF message may carry.
    static let keys: [Character] = Array("0123456789*#ABCD")

    /// The message as it goes on the wire, appended to `buffer`.
    public func write(to buffer: inout ByteBuffer) {
        switch self {
        case .hangUp:
            Self.writeHeader(0x00, length: 0, to: &buffer)
        case .uuid(let uuid):
            Self.writeHeader(0x01, length: 16, to: &buffer)
            withUnsafeBytes(of: uuid.uuid) { _ = buffer.writeBytes($0) }
        case .dtmf(let key):
            Self.writeHeader(0x03, length: 1, to: &buffer)
            buffer.writeInteger(key.asciiValue ?? 0)
        case .audio(let samples):
            Self.writeHeader(0x10, length: samples.count * 2, to: &buffer)
            for sample in samples { buffer.writeInteger(sample, endianness: .little) }
        case .error(let code):
            Self.writeHeader(0xff, length: code == nil ? 0 : 1, to: &buffer)
            if let code { buffer.writeInteger(code) }
        }
    }

    static func writeHeader(_ kind: UInt8, length: Int, to buffer: inout ByteBuffer) {
        buffer.writeInteger(kind)
        buffer.writeInteger(UInt16(length), endianness: .big)
    }
}
