import Foundation
import GatewayAPI
import GatewayCLI
import GatewayCore
import Testing

/// `gatewayctl db copy`: an installation moved from its SQLite file to PostgreSQL keeps
/// serving its users (same signing keys, refresh families, storage, consents, revocations).
@Suite("gatewayctl db copy: SQLite → PostgreSQL, served by a gateway on PostgreSQL")
struct DatabaseCopyTests {
    @Test(
        "a populated SQLite installation copied to PostgreSQL: tokens verify and refresh, storage and consents read back, revocations hold",
        .enabled(if: DatabaseBackend.serverURL != nil))
    func roundTrip() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gw-copy-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let tenant = uniqueTenantID("copy")
        let username = "carol-" + UUID().uuidString.prefix(8).lowercased()
        let app = "app-1"

        let (kept, revoked) = try await GatewayHarness.withGateway(
            folder: folder, publicBaseURL: "https://gateway.test"
        ) { harness, client, port in
            try await harness.createTenant(Tenant(id: tenant, displayName: "Copy"), signIn: false)
            var kit = OAuthTestKit(harness: harness, client: client, port: port)
            kit.tenant = tenant
            kit.username = username
            try await kit.setUp()
            let kept = try await kit.tokens()
            let revoked = try await kit.tokens()
            _ = try await client.revokeToken(
                path: .init(tenant: tenant),
                body: .urlEncodedForm(.init(token: revoked.issuedRefreshToken, clientId: kit.clientID))
            ).ok
            let authed = kit.authorizedClient("Bearer \(kept.accessToken)")
            _ = try await authed.putMiniAppStorage(
                path: .init(tenant: tenant, id: app),
                body: .json(.init(items: .init(additionalProperties: ["note": "sealed ✓"])))
            ).ok
            let subject = try #require(try await harness.bootstrap.authStore.user(tenantID: tenant, username: username))
                .subject
            try await harness.bootstrap.stores.consents.setConsents(
                ["rakuten.miniapp.user.USER_NAME": .allowed],
                for: UserMiniAppKey(tenantID: tenant, userID: subject, miniAppID: app))
            return (kept, revoked)
        }

        let (url, schema) = try await DatabaseBackend.makeSchema()
        defer { Task { await DatabaseBackend.dropSchema(schema) } }
        // As the README runs it: with the gateway's PostgreSQL configured in the environment,
        // --from still names the SQLite file to read.
        let output = CapturedOutput()
        let code = await Gatewayctl.run(
            arguments: ["db", "copy", "--from", folder.appendingPathComponent("gateway.sqlite").path, "--to", url],
            environment: ["GATEWAY_MASTER_KEY": GatewayHarness.masterKeyBase64, "GATEWAY_DATABASE_URL": url],
            output: output)
        #expect(code == 0, "\(output.error)")
        #expect(output.output.contains("rows of tenants\n"))
        #expect(output.output.contains("rows of secure_storage_items"))
        // Copying again into the now populated target is refused, and changes nothing.
        let again = CapturedOutput()
        #expect(
            await Gatewayctl.run(
                arguments: ["db", "copy", "--from", folder.appendingPathComponent("gateway.sqlite").path, "--to", url],
                environment: ["GATEWAY_MASTER_KEY": GatewayHarness.masterKeyBase64], output: again) == 2)
        #expect(again.error.contains("not empty"))

        try await GatewayHarness.withGateway(
            folder: folder.appendingPathComponent("pg"), publicBaseURL: "https://gateway.test", database: url
        ) { harness, client, port in
            #expect(harness.bootstrap.stores.backend == "postgres")
            var kit = OAuthTestKit(harness: harness, client: client, port: port)
            kit.tenant = tenant
            kit.username = username
            // Signed before the copy: the copied signing key still verifies it.
            #expect(try await kit.me(authorization: "Bearer \(kept.accessToken)", tenant: tenant).status == 200)
            #expect(
                try await kit.me(authorization: "Bearer \(revoked.accessToken)", tenant: tenant).status == 401,
                "a revocation was lost in the copy")
            // The copied refresh family rotates; the revoked one does not.
            let refreshed = try await kit.refresh(kept.issuedRefreshToken).ok.body.json
            #expect(try OAuthTestKit.errorCode(try await kit.refresh(revoked.issuedRefreshToken)) == "invalid_grant")
            let authed = kit.authorizedClient("Bearer \(refreshed.accessToken)")
            #expect(
                try await authed.getMiniAppStorageItem(path: .init(tenant: tenant, id: app, key: "note")).ok.body.json
                    .value == "sealed ✓")
            let subject = try #require(try await harness.bootstrap.authStore.user(tenantID: tenant, username: username))
                .subject
            let consents = try await harness.bootstrap.stores.consents.consents(
                of: UserMiniAppKey(tenantID: tenant, userID: subject, miniAppID: app))
            #expect(consents.status(of: "rakuten.miniapp.user.USER_NAME") == .allowed)
            #expect(consents.version == 1)
            // Sign-in with the copied password hash.
            _ = try await kit.tokens()
        }
    }
}
