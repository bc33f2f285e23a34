import Foundation

/// Whether a SIP call's media is SRTP: `off` (plain RTP), `optional` (SRTP when the peer offers or
/// accepts SDES keys, plain otherwise), `required` (SRTP or no call: 488 to a plain offer).
public enum SRTPMode: String, Sendable, CaseIterable {
    case off, optional, required
}

/// The keys of one SRTP call: ours protects what we send, the peer's opens what arrives (RFC 4568 §6.1).
public struct SRTPKeys: Sendable, Equatable {
    public var local: [UInt8]
    public var remote: [UInt8]

    public init(local: [UInt8], remote: [UInt8]) {
        self.local = local
        self.remote = remote
    }
}

/// One SDES `a=crypto` attribute (RFC 4568) for the one suite VoiceBridge speaks,
/// AES_CM_128_HMAC_SHA1_80: a tag, the suite, and 30 bytes of master key ‖ salt sent inline.
public struct SDESCrypto: Sendable, Equatable {
    public static let suite = "AES_CM_128_HMAC_SHA1_80"
    /// 16 bytes of AES key and 14 of salt.
    public static let keyLength = 30

    public var tag: Int
    public var keyAndSalt: [UInt8]

    public init(tag: Int, keyAndSalt: [UInt8]) {
        self.tag = tag
        self.keyAndSalt = keyAndSalt
    }

    /// A fresh key for one call (never reused: SRTP keystream must not repeat).
    public static func fresh(tag: Int = 1) -> SDESCrypto {
        var generator = SystemRandomNumberGenerator()
        return SDESCrypto(tag: tag, keyAndSalt: (0..<keyLength).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    /// Reads `<tag> <suite> inline:<key‖salt>[|lifetime][|MKI:length] [params]`. Nil for any other
    /// suite, a key of the wrong size, several keys, an MKI, or session parameters we do not honour
    /// (unencrypted or unauthenticated SRTP, a key derivation rate): such a line is not ours to accept.
    public init?(attribute value: String) {
        let fields = value.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count >= 3, fields.count == 3 || fields.dropFirst(3).allSatisfy({ $0.hasPrefix("WSH=") }),
              fields[0].count <= 9, let tag = Int(fields[0]), fields[1] == Self.suite, fields[2].hasPrefix("inline:"),
              !fields[2].contains(";") else { return nil }
        let parts = fields[2].dropFirst("inline:".count).split(separator: "|", omittingEmptySubsequences: false)
        // A lifetime may follow the key; an MKI (a second `|` field, or one with a colon) may not.
        guard parts.count <= 2, parts.dropFirst().allSatisfy({ !$0.contains(":") }),
              let key = Data(base64Encoded: String(parts[0])), key.count == Self.keyLength else { return nil }
        self.init(tag: tag, keyAndSalt: Array(key))
    }

    public var attributeValue: String {
        "\(tag) \(Self.suite) inline:\(Data(keyAndSalt).base64EncodedString())"
    }
}

extension SessionDescription.Media {
    /// The first `a=crypto` line VoiceBridge can use.
    var usableCrypto: SDESCrypto? {
        attribute("crypto").lazy.compactMap(SDESCrypto.init(attribute:)).first
    }

    var isSecureProfile: Bool { proto.hasPrefix("RTP/SAVP") }
}
