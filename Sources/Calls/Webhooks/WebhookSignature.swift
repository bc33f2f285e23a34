import Crypto
import Foundation

/// Standard Webhooks v1 signatures (PROTOCOLS-2 §2): `v1,` + base64(HMAC-SHA256(key, "id.timestamp.body")),
/// the key being the base64 after `whsec_` in the endpoint's secret.
public enum WebhookSignature {
    public static func sign(id: String, timestamp: Int, body: some DataProtocol, key: SymmetricKey) -> String {
        var hmac = HMAC<SHA256>(key: key)
        hmac.update(data: Data("\(id).\(timestamp).".utf8))
        hmac.update(data: body)
        return "v1," + Data(hmac.finalize()).base64EncodedString()
    }

    /// The HMAC key of a `whsec_…` secret: 24 to 64 bytes of base64 (padding optional); nil otherwise.
    public static func key(fromSecret secret: String) -> SymmetricKey? {
        guard secret.hasPrefix("whsec_") else { return nil }
        var text = String(secret.dropFirst("whsec_".count))
        text += String(repeating: "=", count: (4 - text.count % 4) % 4)
        guard let bytes = Data(base64Encoded: text), (24...64).contains(bytes.count) else { return nil }
        return SymmetricKey(data: bytes)
    }

    /// A fresh secret: 32 random bytes.
    public static func newSecret() -> String {
        "whsec_" + SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }.base64EncodedString()
    }
}
