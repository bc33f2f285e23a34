import Crypto
import Foundation

/// `X-Twilio-Signature` (PROTOCOLS.md §1.5): base64(HMAC-SHA1(auth token, URL + sorted POST
/// parameters as name+value)), compared in constant time. For a WebSocket upgrade there are no
/// parameters: the URL alone is signed.
enum TwilioSignature {
    static func compute(url: String, parameters: [(String, String)] = [], token: String) -> String {
        var message = url
        for (name, value) in parameters.sorted(by: { $0.0 == $1.0 ? $0.1 < $1.1 : $0.0 < $1.0 }) { message += name + value }
        let mac = HMAC<Insecure.SHA1>.authenticationCode(for: Data(message.utf8), using: SymmetricKey(data: Data(token.utf8)))
        return Data(mac).base64EncodedString()
    }

    /// Whether `signature` signs `url` (as written, with the default port added or removed, and for
    /// WebSocket URLs also in its https form — PROTOCOLS.md leaves the exact string Twilio signs open).
    static func isValid(_ signature: String?, url: String, parameters: [(String, String)] = [], token: String) -> Bool {
        guard let signature, !signature.isEmpty else { return false }
        return variants(of: url).contains { constantTimeEquals(compute(url: $0, parameters: parameters, token: token), signature) }
    }

    static func variants(of url: String) -> [String] {
        var forms = [url]
        for (scheme, alias) in [("wss://", "https://"), ("ws://", "http://")] where url.hasPrefix(scheme) {
            forms.append(alias + url.dropFirst(scheme.count))
        }
        return forms.flatMap { form -> [String] in
            guard var parts = URLComponents(string: form) else { return [form] }
            let defaultPort = (parts.scheme == "https" || parts.scheme == "wss") ? 443 : 80
            if parts.port == defaultPort { parts.port = nil; return [form, parts.string ?? form] }
            if parts.port == nil { parts.port = defaultPort; return [form, parts.string ?? form] }
            return [form]
        }
    }

    static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
