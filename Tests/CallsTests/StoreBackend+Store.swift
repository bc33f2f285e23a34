import TestSupport
@testable import Calls

extension StoreBackend {
    /// A new, empty store.
    func store(cipher: StorageCipher? = nil) async throws -> CallStore {
        try await CallStore.open(try newLocation(), cipher: cipher)
    }
}
