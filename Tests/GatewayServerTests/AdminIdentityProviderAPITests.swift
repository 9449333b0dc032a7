import Foundation
import GatewayCore
import NIOHTTP1
import Testing

/// Identity providers through the admin API (issue 48) on both engines: added with the secret
/// sealed and masked everywhere, read, listed by page, refused with stable codes and nothing
/// written (a taken alias, a second auto-redirect, no openid scope), removed; all recorded.
@Suite("Admin API identity providers")
struct AdminIdentityProviderAPITests {
    static let base = "/admin/v1/tenants/acme/identity-providers"

    @Test(arguments: DatabaseBackend.available)
    func addReadRefuseRemove(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            let token = admin.tokens["acme-admin"]
            let added = try await admin.call(
                .POST, Self.base, token: token,
                body:
                    #"{"alias": "partner", "displayName": "Partner ID", "issuer": "https://login.partner.example", "clientID": "gw", "clientSecret": "idp-secret-0042", "autoRedirect": true}"#,
                contentType: "application/json")
            #expect(added.status == 201 && added.json["clientSecret"] as? String == "…0042", "\(added.json)")
            let stored = try await admin.stores.auth.identityProviders(tenantID: "acme")
            #expect(stored.first?.clientSecret?.plaintext == "idp-secret-0042" && stored.first?.autoRedirect == true)
            _ = try await admin.call(
                .POST, Self.base, token: token,
                body: #"{"alias": "another", "issuer": "https://login.another.example", "clientID": "gw"}"#,
                contentType: "application/json")

            let page = try await admin.call(.GET, "\(Self.base)?limit=1", token: admin.tokens["acme-auditor"])
            #expect((page.json["items"] as? [[String: Any]])?.first?["alias"] as? String == "another")
            #expect(page.json["next"] as? String == "another")
            let one = try await admin.call(.GET, "\(Self.base)/partner", token: admin.tokens["acme-viewer"])
            #expect(one.status == 200 && one.json["displayName"] as? String == "Partner ID")
            #expect(!AdminTenantAPITests.text(one).contains("idp-secret-0042"))
            let releaser = try await admin.call(.GET, Self.base, token: admin.tokens["acme-releaser"])
            #expect(releaser.status == 403 && releaser.json["missingPermission"] as? String == "identity-provider:read")

            for (body, status, code) in [
                (
                    #"{"alias": "partner", "issuer": "https://x.example", "clientID": "c"}"#, 409,
                    "identity_provider_exists"
                ),
                (
                    #"{"alias": "second", "issuer": "https://x.example", "clientID": "c", "autoRedirect": true}"#, 422,
                    "invalid_identity_provider"
                ),
                (
                    #"{"alias": "noscope", "issuer": "https://x.example", "clientID": "c", "scopes": ["email"]}"#, 422,
                    "invalid_identity_provider"
                ),
                (
                    #"{"alias": "Bad_Alias", "issuer": "https://x.example", "clientID": "c"}"#, 422,
                    "invalid_identity_provider"
                ),
                (
                    #"{"alias": "plain", "issuer": "http://x.example", "clientID": "c"}"#, 422,
                    "invalid_identity_provider"
                ),
            ] {
                let refused = try await admin.call(
                    .POST, Self.base, token: token, body: body, contentType: "application/json")
                #expect(refused.status == status && refused.json["code"] as? String == code, "\(body): \(refused.json)")
            }
            #expect(
                try await admin.stores.auth.identityProviders(tenantID: "acme").map(\.alias) == ["another", "partner"])

            let removed = try await admin.call(.DELETE, "\(Self.base)/partner", token: token)
            let again = try await admin.call(.DELETE, "\(Self.base)/partner", token: token)
            let missing = try await admin.call(.GET, "\(Self.base)/partner", token: token)
            #expect(
                removed.status == 204 && again.status == 404
                    && missing.json["code"] as? String == "identity_provider_not_found")

            let records = try await admin.stores.audit.records(
                matching: AuditQuery(chain: "acme", resourceType: .identityProvider, limit: 30)
            ).items
            let outcomes = records.filter { $0.outcome.status != 403 }.reversed().map {
                "\($0.verb.rawValue):\($0.outcome.status)"
            }
            #expect(
                outcomes == [
                    "create:201", "create:201", "create:409", "create:422", "create:422", "create:422", "create:422",
                    "delete:204",
                ], "\(outcomes)")
            let trail = String(decoding: try JSONEncoder().encode(records), as: UTF8.self)
            #expect(!trail.contains("idp-secret-0042") && trail.contains("…0042"))
        }
    }
}
