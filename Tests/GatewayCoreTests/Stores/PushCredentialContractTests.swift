import Crypto
import Foundation
import Testing
@testable import GatewayCore

/// Tenants' push provider credentials on both engines (issue 30): one per tenant × provider,
/// replaced whole, sealed bound to tenant and provider, removed with the tenant.
@Suite("Push credential store contract")
struct PushCredentialContractTests {
    static func apns(team: String = "TEAM123456") throws -> PushCredentials {
        .apns(
            try APNsCredentials(
                keyID: "ABC123DEFG", teamID: team, topic: "com.example.app", environment: .production,
                privateKey: P256.Signing.PrivateKey().pemRepresentation))
    }

    @Test(arguments: StoreBackend.available) func setReplaceRemove(backend: StoreBackend) async throws {
        let database = try await TestDatabase.make(backend)
        defer { database.remove() }
        let store = database.stores.pushCredentials
        for id in ["acme", "other"] {
            try await database.stores.tenants.create(Tenant(id: id, displayName: id), actor: "t")
        }
        #expect(try await store.credentials(tenantID: "acme", provider: .apns) == nil)
        let first = try Self.apns()
        try await store.setCredentials(first, tenantID: "acme", now: Date())
        #expect(try await store.credentials(tenantID: "acme", provider: .apns) == first)
        #expect(try await store.credentials(tenantID: "acme", provider: .fcm) == nil)
        #expect(try await store.credentials(tenantID: "other", provider: .apns) == nil)
        let second = try Self.apns(team: "TEAM654321")
        try await store.setCredentials(second, tenantID: "acme", now: Date())
        #expect(try await store.credentials(tenantID: "acme", provider: .apns) == second)
        #expect(try await store.removeCredentials(tenantID: "acme", provider: .apns))
        #expect(try await store.removeCredentials(tenantID: "acme", provider: .apns) == false)
        #expect(try await store.credentials(tenantID: "acme", provider: .apns) == nil)
    }

    @Test func sealedBoundToTenantAndProvider() throws {
        let sealer = SecretSealer(masterKey: MasterKey.generate())
        let credentials = try Self.apns()
        let sealed = try PushCredentialRows.seal(credentials, tenantID: "acme", sealer: sealer)
        guard case .apns(let apns) = credentials else { return }
        #expect(!sealed.contains(apns.privateKey.plaintext.dropFirst(30).prefix(20)))
        #expect(try PushCredentialRows.open(sealed, tenantID: "acme", provider: .apns, sealer: sealer) == credentials)
        #expect(throws: (any Error).self) { try PushCredentialRows.open(sealed, tenantID: "other", provider: .apns, sealer: sealer) }
        #expect(throws: (any Error).self) { try PushCredentialRows.open(sealed, tenantID: "acme", provider: .fcm, sealer: sealer) }
    }
}
