import Foundation
import Testing
@testable import GatewayCore

@Suite struct SecureStorageTests {
    let alice = UserMiniAppKey(tenantID: "acme", userID: "alice", miniAppID: "app-1")

    @Test func putGetSizeAndMissingKey() async throws {
        let fx = try await UserStateFixture(storageMax: 1_000)
        defer { fx.remove() }
        let store = SQLiteSecureStorageStore(database: fx.database)
        let size = try await store.put(["k1": "héllo", "k2": "v"], for: alice, maxBytes: 1_000)
        #expect(size == SecureStorageSize(used: Int64(2 + "héllo".utf8.count + 2 + 1), max: 1_000))
        #expect(try await store.value(forKey: "k1", of: alice) == "héllo")
        await #expect(throws: SecureStorageError.notFound(key: "nope")) { try await store.value(forKey: "nope", of: alice) }
        // Replacing a key counts only the new value.
        #expect(try await store.put(["k2": "vvv"], for: alice, maxBytes: 1_000).used == size.used + 2)
        #expect(try await store.delete(keys: ["k1", "absent"], for: alice, maxBytes: 1_000).used == 5)
        #expect(try await store.size(of: alice, maxBytes: 1_000).used == 5)
        #expect(try await store.deleteAll(for: alice) == 1)
        #expect(try await store.size(of: alice, maxBytes: 1_000).used == 0)
    }

    @Test func aWriteThatPassesTheCapIsRefusedWhole() async throws {
        let fx = try await UserStateFixture(storageMax: 100)
        defer { fx.remove() }
        let store = SQLiteSecureStorageStore(database: fx.database)
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

    @Test func keyAndValueLimits() async throws {
        let fx = try await UserStateFixture(storageMax: 100)
        defer { fx.remove() }
        let store = SQLiteSecureStorageStore(database: fx.database)
        await #expect(throws: SecureStorageError.self) { try await store.put(["": "v"], for: alice, maxBytes: 100) }
        await #expect(throws: SecureStorageError.self) { try await store.put([String(repeating: "k", count: 257): "v"], for: alice, maxBytes: 10_000) }
        await #expect(throws: SecureStorageError.valueTooLarge(key: "k", bytes: 101, max: 100)) {
            try await store.put(["k": String(repeating: "v", count: 101)], for: alice, maxBytes: 100)
        }
        let many = Dictionary(uniqueKeysWithValues: (0 ..< 1_001).map { ("k\($0)", "") })
        await #expect(throws: SecureStorageError.tooManyItems(count: 1_001, max: 1_000)) { try await store.put(many, for: alice, maxBytes: 1_000_000) }
        #expect(try await store.size(of: alice, maxBytes: 100).used == 0)
    }

    /// 20 writers on separate store instances (separate connection pools, like
    /// processes) race to fill a 1,000-byte cap with 100-byte items: exactly 10 fit.
    @Test func capHoldsUnderTwentyConcurrentWriters() async throws {
        let fx = try await UserStateFixture(storageMax: 1_000)
        defer { fx.remove() }
        let stores = try (0 ..< 20).map { _ in SQLiteSecureStorageStore(database: try fx.reopen()) }
        let owner = alice
        let outcomes = try await withThrowingTaskGroup(of: Bool.self) { group in
            for (index, store) in stores.enumerated() {
                group.addTask {
                    let key = String(format: "key-%02d", index)
                    do {
                        try await store.put([key: String(repeating: "v", count: 100 - key.utf8.count)], for: owner, maxBytes: 1_000)
                        return true
                    } catch SecureStorageError.storageFull {
                        return false
                    }
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 }.count == 10)
        let reader = SQLiteSecureStorageStore(database: try fx.reopen())
        #expect(try await reader.size(of: owner, maxBytes: 1_000).used == 1_000)
        let usage = try await reader.usage(tenantID: "acme", userID: "alice")
        #expect(usage.map(\.itemCount) == [10])
        // The usage row matches what is really stored.
        let stored = try await fx.database.pool.read { db in
            try Int64.fetchOne(db, sql: "SELECT SUM(size_bytes) FROM secure_storage_items WHERE tenant_id = 'acme' AND user_id = 'alice'")
        }
        #expect(stored == 1_000)
    }

    @Test func valuesAreSealedAtRest() async throws {
        let fx = try await UserStateFixture()
        defer { fx.remove() }
        let store = SQLiteSecureStorageStore(database: fx.database)
        let marker = "PLAINTEXT-MARKER-7f3a9"
        try await store.put(["secret": marker], for: alice, maxBytes: 10_000)
        #expect(try await store.value(forKey: "secret", of: alice) == marker)
        for suffix in ["", "-wal"] {
            let path = fx.database.path + suffix
            guard let data = FileManager.default.contents(atPath: path) else { continue }
            #expect(data.range(of: Data(marker.utf8)) == nil, "plaintext found in \(path)")
        }
        // A sealed value moved to another user's row does not open.
        try await fx.database.pool.write { db in
            try db.execute(sql: """
                INSERT INTO secure_storage_items SELECT tenant_id, 'mallory', miniapp_id, key, value_sealed, size_bytes, updated_at_ms
                FROM secure_storage_items WHERE user_id = 'alice'
                """)
        }
        let mallory = UserMiniAppKey(tenantID: "acme", userID: "mallory", miniAppID: "app-1")
        await #expect(throws: SecretSealerError.self) { try await store.value(forKey: "secret", of: mallory) }
    }

    @Test func usersAndTenantsAreIsolated() async throws {
        let fx = try await UserStateFixture()
        defer { fx.remove() }
        let store = SQLiteSecureStorageStore(database: fx.database)
        try await store.put(["k": "alice's"], for: alice, maxBytes: 10_000)
        let bob = UserMiniAppKey(tenantID: "acme", userID: "bob", miniAppID: "app-1")
        let otherTenant = UserMiniAppKey(tenantID: "beta", userID: "alice", miniAppID: "app-1")
        let otherApp = UserMiniAppKey(tenantID: "acme", userID: "alice", miniAppID: "app-2")
        for owner in [bob, otherTenant, otherApp] {
            await #expect(throws: SecureStorageError.notFound(key: "k")) { try await store.value(forKey: "k", of: owner) }
            #expect(try await store.size(of: owner, maxBytes: 10_000).used == 0)
            #expect(try await store.deleteAll(for: owner) == 0)
        }
        #expect(try await store.usage(tenantID: "beta", userID: nil).isEmpty)
        #expect(try await store.value(forKey: "k", of: alice) == "alice's")
    }

    @Test func deletingTheTenantRemovesItsStorage() async throws {
        let fx = try await UserStateFixture()
        defer { fx.remove() }
        let store = SQLiteSecureStorageStore(database: fx.database)
        try await store.put(["k": "v"], for: alice, maxBytes: 10_000)
        try await fx.database.delete(id: "acme", actor: "test")
        let rows = try await fx.database.pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM secure_storage_items") }
        #expect(rows == 0)
    }
}
