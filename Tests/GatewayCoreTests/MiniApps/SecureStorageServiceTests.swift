import Foundation
import Testing
@testable import GatewayCore

@Suite struct SecureStorageServiceTests {
    @Test(arguments: StoreBackend.available) func theTenantsCapApplies(backend: StoreBackend) async throws {
        let fx = try await UserStateFixture(backend, storageMax: 10)
        defer { fx.remove() }
        let service = SecureStorageService(store: fx.stores.storage)
        var tenant = try await fx.tenant()
        let alice = UserMiniAppKey(tenantID: tenant.id, userID: "alice", miniAppID: "app-1")
        #expect(
            try await service.put(["k": "123456789"], for: alice, in: tenant) == SecureStorageSize(used: 10, max: 10))
        let error = await #expect(throws: SecureStorageError.self) {
            try await service.put(["k2": "x"], for: alice, in: tenant)
        }
        #expect(error?.code == "storage_full")
        // Raising the cap (gatewayctl tenant update --storage-max-bytes) lets the write through.
        tenant = try await fx.stores.tenants.update(id: "acme", actor: "test") { $0.storageMaxSizeInBytes = 20 }
        #expect(try await service.put(["k2": "x"], for: alice, in: tenant).used == 13)
        #expect(try await service.size(of: alice, in: tenant) == SecureStorageSize(used: 13, max: 20))
        #expect(try await service.value(forKey: "k2", of: alice) == "x")
        #expect(try await service.delete(keys: ["k"], for: alice, in: tenant).used == 3)
        #expect(try await service.deleteAll(for: alice) == 1)
    }
}
