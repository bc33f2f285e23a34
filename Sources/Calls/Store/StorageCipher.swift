import Crypto
import Foundation

/// Seals what a call said and produced (transcripts, answers, summaries, metadata, contact
/// variables, webhook payloads, recordings) with AES-256-GCM before it reaches the disk.
///
/// Every sealed value names the key it was sealed with, so keys can be rotated: the current key
/// seals, the current and any previous keys open, and `voicebridge rekey` rewrites what older
/// keys sealed. A key's id is derived from the key itself, so a wrong key can never be mistaken
/// for the right one — it has a different id, and the store refuses to start on data it cannot
/// open. Text that is not sealed (written before encryption was turned on) reads as it is.
public struct StorageCipher: Sendable {
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// Sealed with a key this server was not given.
        case unknownKey(String)
        /// The key id matched but the value did not authenticate: the stored bytes were changed.
        case damaged(keyID: String)
        case malformed
        /// Asked to seal with no key configured.
        case noKey

        public var description: String {
            switch self {
            case .unknownKey(let id): "sealed with storage key \(id), which is not configured"
            case .damaged(let id): "a value sealed with storage key \(id) fails authentication (changed on disk)"
            case .malformed: "a sealed value is malformed"
            case .noKey: "no storage.encryption_key is set: there is nothing to seal with"
            }
        }
    }

    /// Sealed text reads `vbenc1:<key id>:<base64 of nonce, ciphertext and tag>`.
    static let textPrefix = "vbenc1:"
    /// 32 random bytes: `openssl rand -base64 32`.
    public static let keyBytes = 32

    /// The key that seals; `keyIDs` also lists the previous ones that still open.
    public let currentKeyID: String
    private let keys: [String: SymmetricKey]

    public var keyIDs: Set<String> { Set(keys.keys) }

    public init(currentKey: Data, previousKeys: [Data] = []) {
        precondition(currentKey.count == Self.keyBytes, "storage keys are \(Self.keyBytes) bytes (checked when the configuration loads)")
        currentKeyID = Self.keyID(of: currentKey)
        var keys = [currentKeyID: SymmetricKey(data: currentKey)]
        for key in previousKeys where key.count == Self.keyBytes { keys[Self.keyID(of: key)] = SymmetricKey(data: key) }
        self.keys = keys
    }

    /// Eight hex digits of a SHA-256 over a label and the key: names the key without revealing it.
    public static func keyID(of key: Data) -> String {
        var hash = SHA256()
        hash.update(data: Data("voicebridge storage key".utf8))
        hash.update(data: key)
        return hash.finalize().prefix(4).hexDigits
    }

    // MARK: Text

    public func seal(_ text: String) -> String {
        Self.textPrefix + currentKeyID + ":" + seal(Data(text.utf8), context: Data()).base64EncodedString()
    }


    /// The plain text of a sealed value; text that was never sealed comes back as it is.
    public func open(_ text: String) throws -> String {
        guard let (id, body) = Self.parse(text) else { return text }
        guard let data = Data(base64Encoded: String(body)) else { throw Failure.malformed }
        return String(decoding: try open(data, keyID: id, context: Data()), as: UTF8.self)
    }

    /// The key a stored text was sealed with; nil when it is not sealed.
    public static func keyID(ofSealed text: String) -> String? { parse(text)?.id }

    private static func parse(_ text: String) -> (id: String, body: Substring)? {
        guard text.hasPrefix(textPrefix) else { return nil }
        let rest = text.dropFirst(textPrefix.count)
        guard let colon = rest.firstIndex(of: ":") else { return nil }
        return (String(rest[..<colon]), rest[rest.index(after: colon)...])
    }

    // MARK: Bytes

    /// Nonce, ciphertext and tag; `context` is authenticated too (a recording segment's place).
    public func seal(_ data: Data, context: Data) -> Data {
        // AES-GCM with a fresh random nonce cannot fail for inputs this size.
        try! AES.GCM.seal(data, using: keys[currentKeyID]!, authenticating: context).combined!
    }

    public func open(_ sealed: Data, keyID: String, context: Data) throws -> Data {
        guard let key = keys[keyID] else { throw Failure.unknownKey(keyID) }
        guard let box = try? AES.GCM.SealedBox(combined: sealed) else { throw Failure.malformed }
        do { return try AES.GCM.open(box, using: key, authenticating: context) } catch { throw Failure.damaged(keyID: keyID) }
    }
}
