import Foundation
import Testing
@testable import GatewayCore
@testable import GatewaySQLite

@Suite struct SecretsAtRestTests {
    @Test(arguments: StoreBackend.available) func secretsNeverReachTheDatabase(backend: StoreBackend) async throws {
        let database = try await TestDatabase.make(backend)
        defer { database.remove() }
        let store = database.stores.tenants
        var tenant = Tenant(id: "acme", displayName: "Acme")
        tenant.platform.subscriptionKey = SecretValue("K1-SECRET-MARKER")
        tenant.provisioning.apiKey = SecretValue("API-KEY-SECRET-MARKER")
        try await store.create(tenant, actor: "t")
        try await store.update(id: "acme", actor: "t") { $0.displayName = "Acme 2" }
        #expect(try await store.tenant(id: "acme")?.platform.subscriptionKey?.plaintext == "K1-SECRET-MARKER")

        let bytes = try await database.bytesAtRest()
        #expect(bytes.range(of: Data("Acme 2".utf8)) != nil, "the search reads the stored rows")
        for marker in ["K1-SECRET-MARKER", "API-KEY-SECRET-MARKER"] {
            #expect(bytes.range(of: Data(marker.utf8)) == nil, "\(marker) found at rest on \(backend)")
        }
    }
}

@Suite struct SecretSealerTests {
    let context = "tenant:acme:platform.subscriptionKey"

    @Test func sealsAndOpens() throws {
        let sealed = try Fixtures.sealer.seal("ras-secret", context: context)
        #expect(sealed.hasPrefix("v1:"))
        #expect(!sealed.contains("ras-secret"))
        #expect(try Fixtures.sealer.seal("ras-secret", context: context) != sealed)
        #expect(try Fixtures.sealer.open(sealed, context: context) == "ras-secret")
    }

    @Test func wrongKeyFailsWithATypedError() throws {
        let sealed = try Fixtures.sealer.seal("ras-secret", context: context)
        let other = SecretSealer(masterKey: MasterKey.generate())
        #expect(throws: SecretSealerError.authenticationFailed(context: context)) {
            try other.open(sealed, context: context)
        }
    }

    @Test func valueSealedForAnotherContextFails() throws {
        let sealed = try Fixtures.sealer.seal("ras-secret", context: context)
        #expect(throws: SecretSealerError.self) {
            try Fixtures.sealer.open(sealed, context: "tenant:evil:platform.subscriptionKey")
        }
        #expect(throws: SecretSealerError.self) {
            try Fixtures.sealer.open(sealed, context: "tenant:acme:provisioning.apiKey")
        }
    }

    @Test func malformedValuesFail() {
        #expect(throws: SecretSealerError.unsupportedFormat(context: context)) {
            try Fixtures.sealer.open("plaintext", context: context)
        }
        #expect(throws: SecretSealerError.malformed(context: context)) {
            try Fixtures.sealer.open("v1:!!!", context: context)
        }
    }

    @Test func storeWithTheWrongKeyCannotReadSecrets() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try await Fixtures.store(folder).create(Fixtures.fullTenant(), actor: "t")
        let wrong = try SQLiteTenantStore(
            path: folder.file("gateway.sqlite"), sealer: SecretSealer(masterKey: .generate()))
        await #expect(throws: SecretSealerError.self) { try await wrong.allTenants() }
    }
}
