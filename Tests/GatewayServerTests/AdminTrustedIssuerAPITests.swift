import Foundation
import GatewayCore
import NIOHTTP1
import Testing

/// Trusted issuers through the admin API (issue 48) on both engines: trusted, replaced whole,
/// listed by page with the introspection secret masked everywhere (answers and trail), refused
/// with a stable code and nothing written, untrusted; every write and refusal recorded.
@Suite("Admin API trusted issuers")
struct AdminTrustedIssuerAPITests {
    static let base = "/admin/v1/tenants/acme/trusted-issuers"

    @Test(arguments: DatabaseBackend.available)
    func trustReplaceUntrust(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            let token = admin.tokens["acme-admin"]
            let trusted = try await admin.call(
                .POST, Self.base, token: token,
                body:
                    #"{"issuer": "https://login.partner.example", "audience": "acme-api", "introspectionClientID": "gw", "introspectionSecret": "partner-secret-0042"}"#,
                contentType: "application/json")
            #expect(
                trusted.status == 200 && trusted.json["introspectionSecret"] as? String == "…0042", "\(trusted.json)")
            let stored = try await admin.stores.auth.trustedIssuers(tenantID: "acme")
            #expect(stored.first?.introspection?.clientSecret?.plaintext == "partner-secret-0042")
            let replaced = try await admin.call(
                .POST, Self.base, token: token,
                body: #"{"issuer": "https://login.partner.example", "audience": "acme-api-2", "subjectClaim": "uid"}"#,
                contentType: "application/json")
            #expect(replaced.status == 200 && replaced.json["introspectionClientID"] == nil)
            #expect(try await admin.stores.auth.trustedIssuers(tenantID: "acme").map(\.audience) == ["acme-api-2"])
            _ = try await admin.call(
                .POST, Self.base, token: token, body: #"{"issuer": "https://a.partner.example", "audience": "x"}"#,
                contentType: "application/json")

            let first = try await admin.call(.GET, "\(Self.base)?limit=1", token: admin.tokens["acme-viewer"])
            #expect(
                (first.json["items"] as? [[String: Any]])?.first?["issuer"] as? String == "https://a.partner.example")
            #expect(first.json["next"] as? String == "https://a.partner.example")
            let sender = try await admin.call(.GET, Self.base, token: admin.tokens["acme-sender"])
            #expect(sender.status == 403 && sender.json["missingPermission"] as? String == "trusted-issuer:read")

            // The rules: http off loopback, a query in the issuer, a secret without a client, an
            // unknown member, a cache time over an hour.
            for body in [
                #"{"issuer": "http://login.partner.example", "audience": "a"}"#,
                #"{"issuer": "https://login.partner.example?x=1", "audience": "a"}"#,
                #"{"issuer": "https://b.partner.example", "audience": "a", "introspectionSecret": "s"}"#,
                #"{"issuer": "https://b.partner.example", "audience": "a", "tenant": "beta"}"#,
                #"{"issuer": "https://b.partner.example", "audience": "a", "introspectionClientID": "c", "introspectionCacheSeconds": 7200}"#,
            ] {
                let refused = try await admin.call(
                    .POST, Self.base, token: token, body: body, contentType: "application/json")
                #expect([400, 422].contains(refused.status) && refused.json["code"] != nil, "\(body): \(refused.json)")
            }
            #expect(try await admin.stores.auth.trustedIssuers(tenantID: "acme").count == 2)

            let issuer = "https%3A%2F%2Flogin.partner.example"
            let untrusted = try await admin.call(.DELETE, "\(Self.base)?issuer=\(issuer)", token: token)
            let again = try await admin.call(.DELETE, "\(Self.base)?issuer=\(issuer)", token: token)
            #expect(
                untrusted.status == 204 && again.status == 404
                    && again.json["code"] as? String == "trusted_issuer_not_found")
            #expect(
                try await admin.stores.auth.trustedIssuers(tenantID: "acme").map(\.issuer) == [
                    "https://a.partner.example"
                ])

            let records = try await admin.stores.audit.records(
                matching: AuditQuery(chain: "acme", resourceType: .trustedIssuer, limit: 30)
            ).items
            let outcomes = records.filter { $0.outcome.status != 403 }.reversed().map {
                "\($0.verb.rawValue):\($0.outcome.status)"
            }
            #expect(
                outcomes == ["create:200", "update:200", "create:200", "create:422", "create:422", "delete:204"],
                "\(outcomes)")
            let trail = String(decoding: try JSONEncoder().encode(records), as: UTF8.self)
            #expect(!trail.contains("partner-secret-0042") && trail.contains("…0042"))
        }
    }
}
