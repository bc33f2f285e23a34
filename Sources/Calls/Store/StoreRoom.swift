/// A store type of the one database: `CallStore` (calls, their answers and events) and each
/// domain's own room beside it — `CampaignStore`, `DoNotCallList`, `KnowledgeStore`,
/// `WebhookStore`, `ClusterNodes`. Each keeps its own tables; all reach the database through the
/// same transactions.
protocol StoreRoom: Sendable {
    var shared: SharedDatabase { get }
}

extension StoreRoom {
    /// One consistent snapshot (`SharedDatabase.read`).
    func sqlRead<T: Sendable>(_ value: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        try await shared.read(value)
    }

    /// One transaction, its result returned once committed (`SharedDatabase.write`).
    @discardableResult
    func sqlWrite<T: Sendable>(_ updates: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        try await shared.write(updates)
    }
}

/// A room that stores values sealed (transcripts, contact variables, webhook secrets and
/// payloads): every such room seals with the same cipher.
protocol SealingStoreRoom: StoreRoom {
    /// Seals what the room stores in the clear (nil: stored as plain text).
    var cipher: StorageCipher? { get }
}

extension SealingStoreRoom {
    func sealed(_ text: String) -> String { cipher?.seal(text) ?? text }

    func sealed(_ text: String?) -> String? { text.map { sealed($0) } }

    func opened(_ text: String) throws -> String { try CallStore.open(text, with: cipher) }

    func opened(_ text: String?) throws -> String? { try text.map { try opened($0) } }
}
