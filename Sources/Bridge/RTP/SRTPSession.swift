import CSRTP
import Synchronization

/// SRTP for one call (RFC 3711, AES_CM_128_HMAC_SHA1_80) through Debian's libsrtp2: one libsrtp
/// session protects what we send with our key, another checks and decrypts what arrives with the
/// peer's. Each sits behind its own lock: libsrtp sessions must not be used from two threads at once.
public final class SRTPSession: Sendable {
    public enum Failure: Error, Equatable, CustomStringConvertible {
        case libraryUnavailable(Int)
        case badKey(Int)

        public var description: String {
            switch self {
            case .libraryUnavailable(let code): "libsrtp2 did not initialise (error \(code))"
            case .badKey(let code): "libsrtp2 refused the SRTP key (error \(code))"
            }
        }
    }

    /// libsrtp writes the authentication tag after the packet: it needs this much room
    /// (SRTP_MAX_TRAILER_LEN in 2.x: 16 bytes of tag, 128 of MKI).
    static let trailerRoom = 144

    private let outbound: Mutex<Context>
    private let inbound: Mutex<Context>
    public let keys: SRTPKeys

    /// libsrtp's one-time set-up; thread-safe because a static is initialised once.
    private static let initialised: srtp_err_status_t = srtp_init()

    public init(keys: SRTPKeys) throws(Failure) {
        guard Self.initialised == srtp_err_status_ok else { throw .libraryUnavailable(Int(Self.initialised.rawValue)) }
        let tx = try Context(key: keys.local, direction: ssrc_any_outbound)
        let rx = try Context(key: keys.remote, direction: ssrc_any_inbound)
        self.keys = keys
        outbound = Mutex(tx)
        inbound = Mutex(rx)
    }

    /// The packet encrypted and tagged; nil if libsrtp refuses it.
    public func protect(_ packet: [UInt8]) -> [UInt8]? {
        outbound.withLock { $0.apply(packet, grows: true, srtp_protect) }
    }

    /// The packet checked and decrypted; nil when the tag does not verify (wrong key, a plain
    /// packet) or it is a replay — such a packet is never played.
    public func unprotect(_ packet: [UInt8]) -> [UInt8]? {
        inbound.withLock { $0.apply(packet, grows: false, srtp_unprotect) }
    }

    public func protectRTCP(_ packet: [UInt8]) -> [UInt8]? {
        outbound.withLock { $0.apply(packet, grows: true, srtp_protect_rtcp) }
    }

    public func unprotectRTCP(_ packet: [UInt8]) -> [UInt8]? {
        inbound.withLock { $0.apply(packet, grows: false, srtp_unprotect_rtcp) }
    }

    /// One libsrtp session; freed with its owner.
    private struct Context: ~Copyable {
        let session: srtp_t

        init(key: [UInt8], direction: srtp_ssrc_type_t) throws(Failure) {
            guard key.count == SDESCrypto.keyLength else { throw .badKey(Int(srtp_err_status_bad_param.rawValue)) }
            var policy = srtp_policy_t()
            srtp_crypto_policy_set_rtp_default(&policy.rtp)     // AES_CM_128_HMAC_SHA1_80
            srtp_crypto_policy_set_rtcp_default(&policy.rtcp)
            policy.ssrc.type = direction                          // any SSRC: a stream per sender, made on its first packet
            var created: srtp_t?
            var material = key                                    // srtp_create copies it
            let status = material.withUnsafeMutableBufferPointer { buffer in
                policy.key = buffer.baseAddress
                return srtp_create(&created, &policy)
            }
            guard status == srtp_err_status_ok, let created else { throw .badKey(Int(status.rawValue)) }
            session = created
        }

        deinit { srtp_dealloc(session) }

        typealias Transform = (srtp_t?, UnsafeMutableRawPointer?, UnsafeMutablePointer<Int32>?) -> srtp_err_status_t

        func apply(_ packet: [UInt8], grows: Bool, _ transform: Transform) -> [UInt8]? {
            guard packet.count >= 12 else { return nil }
            var buffer = packet
            if grows { buffer.append(contentsOf: repeatElement(0, count: SRTPSession.trailerRoom)) }
            var length = Int32(packet.count)
            let status = buffer.withUnsafeMutableBytes { transform(session, $0.baseAddress, &length) }
            guard status == srtp_err_status_ok, length >= 0, Int(length) <= buffer.count else { return nil }
            buffer.removeLast(buffer.count - Int(length))
            return buffer
        }
    }
}
