import Foundation
import Testing
@testable import GatewayCore

@Suite struct SecureStorageTests {
    let alice = UserMiniAppKey(tenantID: "acme", userID: "alice", miniAppID: "app-1")

    @Test(arguments: StoreBackend.available) func putGetSizeAndMissingKey(backend: StoreBackend) async throws {
        let fx = try await UserStateFixture(backend, storageMax: 1_000)
        defer { fx.remove() }
        let store = fx.stores.storage
        let size = try await store.put(["k1": "héllo", "k2": "v"], for: alice, maxBytes: 1_000)
        #expect(size == SecureStorageSize(used: Int64(2 + "héllo".utf8.count + 2 + 1), max: 1_000))
        #expect(try await store.value(forKey: "k1", of: alice) == "héllo")
        await #expect(throws: SecureStorageError.notFound(key: "nope")) {
            try await store.value(forKey: "nope", of: alice)
        }
        // Replacing a key counts only the new value.
        #expect(try await store.put(["k2": "vvv"], for: alice, maxBytes: 1_000).used == size.used + 2)
        #expect(try await store.delete(keys: ["k1", "absent"], for: alice, maxBytes: 1_000).used == 5)
        #expect(try await store.size(of: alice, maxBytes: 1_000).used == 5)
        #expect(try await store.deleteAll(for: alice) == 1)
        #expect(try await store.size(of: alice, maxBytes: 1_000).used == 0)
    }

    @Test(arguments: StoreBackend.available) func aWriteThatPassesTheCapIsRefusedWhole(
        backend: StoreBackend
    ) async throws {
        let fx = try await UserStateFixture(backend, storageMax: 100)
        defer { fx.remove() }
        let store = fx.stores.storage
        try await store.put(["a": String(repeating: "x", count: 49)], for: alice, maxBytes: 100)
        let big = ["b": String(repeating: "y", count: 40), "c": String(repeating: "z", count: 20)]
        await #expect(throws: SecureStorageError.storageFull(used: 50, requested: 112, max: 100)) {
            try await store.put(big, for: alice, maxBytes: 100)
        }
        await #expect(throws: SecureStorageError.notFound(key: "b")) { try await store.value(forKey: "b", of: alice) }
        #expect(try await store.size(of: alice, maxBytes: 100).used == 50)
        // Exactly the cap fits.
        #expect(try await store.put(["b": String(repeating: "y", count: 49)], for: alice, maxBytes: 100).used == 100)
    }

    @Test(arguments: StoreBackend.available) func keyAndValueLimits(backend: StoreBackend) async throws {
        let fx = try await UserStateFixture(backend, storageMax: 100)
        defer { fx.remove() }
        let store = fx.stores.storage
        await #expect(throws: SecureStorageError.self) { try await store.put(["": "v"], for: alice, maxBytes: 100) }
        await #expect(throws: SecureStorageError.self) {
            try await store.put([String(repeating: "k", count: 257): "v"], for: alice, maxBytes: 10_000)
        }
        await #expect(throws: SecureStorageError.valueTooLarge(key: "k", bytes: 101, max: 100)) {
            try await store.put(["k": String(repeating: "v", count: 101)], for: alice, maxBytes: 100)
        }
        let many = Dictionary(uniqueKeysWithValues: (0..<1_001).map { ("k\($0)", "") })
        await #expect(throws: SecureStorageError.tooManyItems(count: 1_001, max: 1_000)) {
            try await store.put(many, for: alice, maxBytes: 1_000_000)
        }
        #expect(try await store.size(of: alice, maxBytes: 100).used == 0)
    }

    /// 20 writers on separate store instances (separate connection pools, like
    /// processes) race to fill a 1,000-byte cap with 100-byte items: exactly 10 fit.
    @Test(arguments: StoreBackend.available) func capHoldsUnderTwentyConcurrentWriters(
        backend: StoreBackend
    ) async throws {
        let fx = try await UserStateFixture(backend, storageMax: 1_000)
        defer { fx.remove() }
        var stores: [any SecureStorageStore] = []
        for _ in 0 ..< 20 { stores.append(try await fx.reopen().storage) }
        let owner = alice
        let outcomes = try await withThrowingTaskGroup(of: Bool.self) { group in
            for (index, store) in stores.enumerated() {
                group.addTask {
                    let key = String(format: "key-%02d", index)
                    do {
                        try await store.put(
                            [key: String(repeating: "v", count: 100 - key.utf8.count)], for: owner, maxBytes: 1_000)
                        return true
                    } catch SecureStorageError.storageFull {
                        return false
                    }
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 }.count == 10)
        let reader = try await fx.reopen().storage
        #expect(try await reader.size(of: owner, maxBytes: 1_000).used == 1_000)
        let usage = try await reader.usage(tenantID: "acme", userID: "alice")
        #expect(usage.map(\.itemCount) == [10])
        // The usage row matches what is really stored.
        let stored = try await fx.database.integer(
            "SELECT CAST(SUM(size_bytes) AS BIGINT) FROM secure_storage_items WHERE tenant_id = 'acme' AND user_id = 'alice'"
        )
        #expect(stored == 1_000)
    }

    @Test(arguments: StoreBackend.available) func valuesAreSealedAtRest(backend: StoreBackend) async throws {
        let fx = try await UserStateFixture(backend)
        defer { fx.remove() }
        let store = fx.stores.storage
        let marker = "PLAINTEXT-MARKER-7f3a9"
        try await store.put(["secret": marker], for: alice, maxBytes: 10_000)
        #expect(try await store.value(forKey: "secret", of: alice) == marker)
        let atRest = try await fx.database.bytesAtRest()
        #expect(atRest.range(of: Data("secret".utf8)) != nil, "the search reads the stored rows")
        #expect(atRest.range(of: Data(marker.utf8)) == nil, "plaintext found at rest on \(backend)")
        // A sealed value moved to another user's row does not open.
        try await fx.database.execute("""
            INSERT INTO secure_storage_items SELECT tenant_id, 'mallory', miniapp_id, key, value_sealed, size_bytes, updated_at_ms
            FROM secure_storage_items WHERE user_id = 'alice'
            """)
        let mallory = UserMiniAppKey(tenantID: "acme", userID: "mallory", miniAppID: "app-1")
        await #expect(throws: SecretSealerError.self) { try await store.value(forKey: "secret", of: mallory) }
    }

    /// Usage pages in the bytes' order on both engines (upper case before lower, ASCII before
    /// the rest), so the admin API's cursors continue where the page before stopped.
    @Test(arguments: StoreBackend.available) func usagePagesInByteOrder(backend: StoreBackend) async throws {
        let fx = try await UserStateFixture(backend)
        defer { fx.remove() }
        let store = fx.stores.storage
        let owners = [("alice", "b"), ("Bob", "a"), ("é", "a"), ("alice", "a"), ("alice-2", "a")]
        for (user, miniApp) in owners {
            try await store.put(["k": "v"], for: UserMiniAppKey(tenantID: "acme", userID: user, miniAppID: miniApp), maxBytes: 1_000)
        }
        var seen: [String] = []
        var after: (userID: String, miniAppID: String)?
        repeat {
            let page = try await store.usage(tenantID: "acme", userID: nil, after: after, limit: 2)
            seen += page.map { "\($0.userID)/\($0.miniAppID)" }
            after = page.count == 2 ? page.last.map { ($0.userID, $0.miniAppID) } : nil
        } while after != nil
        #expect(seen == ["Bob/a", "alice/a", "alice/b", "alice-2/a", "é/a"])
        let one = try await store.usage(tenantID: "acme", userID: "alice", after: ("alice", "a"), limit: 10)
        #expect(one.map(\.miniAppID) == ["b"])
    }

    @Test(arguments: StoreBackend.available) func usersAndTenantsAreIsolated(backend: StoreBackend) async throws {
        let fx = try await UserStateFixture(backend)
        defer { fx.remove() }
        let store = fx.stores.storage
        try await store.put(["k": "alice's"], for: alice, maxBytes: 10_000)
        let bob = UserMiniAppKey(tenantID: "acme", userID: "bob", miniAppID: "app-1")
        let otherTenant = UserMiniAppKey(tenantID: "beta", userID: "alice", miniAppID: "app-1")
        let otherApp = UserMiniAppKey(tenantID: "acme", userID: "alice", miniAppID: "app-2")
        for owner in [bob, otherTenant, otherApp] {
            await #expect(throws: SecureStorageError.notFound(key: "k")) {
                try await store.value(forKey: "k", of: owner)
            }
            #expect(try await store.size(of: owner, maxBytes: 10_000).used == 0)
            #expect(try await store.deleteAll(for: owner) == 0)
        }
        #expect(try await store.usage(tenantID: "beta", userID: nil).isEmpty)
        #expect(try await store.value(forKey: "k", of: alice) == "alice's")
    }

    @Test(arguments: StoreBackend.available) func deletingTheTenantRemovesItsStorage(backend: StoreBackend) async throws
    {
        let fx = try await UserStateFixture(backend)
        defer { fx.remove() }
        let store = fx.stores.storage
        try await store.put(["k": "v"], for: alice, maxBytes: 10_000)
        try await fx.stores.tenants.delete(id: "acme", actor: "test")
        let rows = try await fx.database.integer("SELECT COUNT(*) FROM secure_storage_items")
        #expect(rows == 0)
    }
}
