import Foundation
import GatewayCore
import NIOHTTP1
import Testing

/// Link domains through the admin API (issue 48) on both engines: added, extended, listed by
/// page, removed; another tenant's host refused without naming the tenant; bad hosts and app
/// ids refused with a stable code and nothing written; every write and refusal recorded.
@Suite("Admin API link domains")
struct AdminLinkDomainAPITests {
    static let base = "/admin/v1/tenants/acme/link-domains"

    static func body(_ host: String, _ appIDs: [String]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: ["host": host, "appIDs": appIDs]), as: UTF8.self)
    }

    static let fingerprint = "14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5"

    @Test("Android apps: added alone, fingerprints merged per package, malformed ones refused", arguments: DatabaseBackend.available)
    func androidApps(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            let token = admin.tokens["acme-admin"]
            func add(_ apps: [[String: Any]], appIDs: [String]? = nil) async throws -> (status: Int, json: [String: Any]) {
                var body: [String: Any] = ["host": "android.acme.example", "androidApps": apps]
                if let appIDs { body["appIDs"] = appIDs }
                let text = String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)
                let answer = try await admin.call(.POST, Self.base, token: token, body: text, contentType: "application/json")
                return (answer.status, answer.json)
            }
            let lower = Self.fingerprint.lowercased()
            let first = try await add([["packageName": "com.acme.app", "sha256CertFingerprints": [lower]]])
            #expect(first.status == 200, "\(first.json)")
            let second = String(repeating: "AB:", count: 31) + "CD"
            let merged = try await add([["packageName": "com.acme.app", "sha256CertFingerprints": [second]]])
            let apps = merged.json["androidApps"] as? [[String: Any]]
            #expect(apps?.count == 1 && apps?.first?["sha256CertFingerprints"] as? [String] == [Self.fingerprint, second])
            #expect(merged.json["appIDs"] as? [String] == [])

            let before = try await admin.stores.domains.domain(host: "android.acme.example")
            for (apps, appIDs) in [
                ([["packageName": "acme", "sha256CertFingerprints": [second]]], nil),
                ([["packageName": "com.acme.app", "sha256CertFingerprints": [String(second.dropLast(2)) + "ZZ"]]], nil),
                ([["packageName": "com.1acme.app", "sha256CertFingerprints": [second]]], nil),
                ([], [String]()),
                ([], nil),
            ] as [([[String: Any]], [String]?)] {
                let refused = try await add(apps, appIDs: appIDs)
                #expect(refused.status == 422 && refused.json["code"] as? String == "invalid_link_domain", "\(refused)")
            }
            #expect(try await admin.stores.domains.domain(host: "android.acme.example") == before)
            let records = try await admin.stores.audit.records(
                matching: AuditQuery(chain: "acme", resourceType: .linkDomain, limit: 30)
            ).items
            #expect(records.filter { $0.resource.id == "android.acme.example" && $0.outcome.status == 422 }.count == 5)
        }
    }

    @Test(arguments: DatabaseBackend.available)
    func addExtendListRemove(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            let token = admin.tokens["acme-admin"]
            let added = try await admin.call(
                .POST, Self.base, token: token, body: try Self.body("Links.Acme.example", ["ABCDE12345.com.acme.app"]),
                contentType: "application/json")
            #expect(added.status == 200 && added.json["host"] as? String == "links.acme.example", "\(added.json)")
            let extended = try await admin.call(
                .POST, Self.base, token: token,
                body: try Self.body("links.acme.example", ["ABCDE12345.com.acme.app", "ABCDE12345.com.acme.clip"]),
                contentType: "application/json")
            #expect(extended.json["appIDs"] as? [String] == ["ABCDE12345.com.acme.app", "ABCDE12345.com.acme.clip"])
            let served = try await admin.stores.domains.domain(host: "links.acme.example")
            #expect(served?.tenantID == "acme" && served?.appIDs.count == 2)
            for host in ["a.acme.example", "b.acme.example"] {
                _ = try await admin.call(
                    .POST, Self.base, token: token, body: try Self.body(host, ["ABCDE12345.com.acme.app"]),
                    contentType: "application/json")
            }
            // Pages by host; a viewer reads, a release manager does not.
            let first = try await admin.call(.GET, "\(Self.base)?limit=2", token: admin.tokens["acme-viewer"])
            let hosts = (first.json["items"] as? [[String: Any]])?.compactMap { $0["host"] as? String }
            #expect(hosts == ["a.acme.example", "b.acme.example"] && first.json["next"] as? String == "b.acme.example")
            let rest = try await admin.call(.GET, "\(Self.base)?limit=2&cursor=b.acme.example", token: token)
            #expect((rest.json["items"] as? [[String: Any]])?.count == 1 && rest.json["next"] == nil)
            let one = try await admin.call(.GET, "\(Self.base)/links.acme.example", token: token)
            #expect(one.status == 200 && (one.json["appIDs"] as? [String])?.count == 2)
            let releaser = try await admin.call(.GET, Self.base, token: admin.tokens["acme-releaser"])
            #expect(releaser.status == 403 && releaser.json["missingPermission"] as? String == "link-domain:read")

            // Another tenant's host: 409 without its name; it stays that tenant's.
            try await admin.stores.domains.add(
                host: "links.beta.example", tenantID: "beta", appIDs: ["ABCDE12345.com.beta.app"])
            let taken = try await admin.call(
                .POST, Self.base, token: token, body: try Self.body("links.beta.example", ["ABCDE12345.com.acme.app"]),
                contentType: "application/json")
            #expect(taken.status == 409 && taken.json["code"] as? String == "link_domain_taken")
            #expect(!AdminTenantAPITests.text(taken).contains("beta\""))
            #expect(
                try await admin.stores.domains.domain(host: "links.beta.example")?.appIDs == ["ABCDE12345.com.beta.app"]
            )
            let foreign = try await admin.call(.GET, "\(Self.base)/links.beta.example", token: token)
            #expect(foreign.status == 404 && foreign.json["code"] as? String == "link_domain_not_found")

            // Bad input: a scheme, a port, a short team id, no app ids, an unknown member.
            for body in [
                try Self.body("https://x.acme.example", ["ABCDE12345.com.acme.app"]),
                try Self.body("x.acme.example:443", ["ABCDE12345.com.acme.app"]),
                try Self.body("x.acme.example", ["ABC.com.acme.app"]),
                try Self.body("x.acme.example", []),
                #"{"host": "x.acme.example", "appIDs": ["ABCDE12345.com.acme.app"], "tenant": "beta"}"#,
            ] {
                let refused = try await admin.call(
                    .POST, Self.base, token: token, body: body, contentType: "application/json")
                #expect([400, 422].contains(refused.status) && refused.json["code"] != nil, "\(body): \(refused.json)")
            }
            let longCursor = try await admin.call(
                .GET, "\(Self.base)?cursor=\(String(repeating: "0", count: 201))", token: token)
            #expect(longCursor.status == 400 && longCursor.json["code"] as? String == "invalid_request")
            // JSON Schema counts code points: 150 letters with a combining mark each are 300.
            let marked = String(repeating: "e\u{0301}", count: 150).addingPercentEncoding(
                withAllowedCharacters: .alphanumerics)!
            let combining = try await admin.call(.GET, "\(Self.base)?cursor=\(marked)", token: token)
            #expect(combining.status == 400 && combining.json["code"] as? String == "invalid_request")
            #expect(try await admin.stores.domains.domain(host: "x.acme.example") == nil)

            let removed = try await admin.call(.DELETE, "\(Self.base)/a.acme.example", token: token)
            let again = try await admin.call(.DELETE, "\(Self.base)/a.acme.example", token: token)
            let foreignDelete = try await admin.call(.DELETE, "\(Self.base)/links.beta.example", token: token)
            #expect(removed.status == 204 && again.status == 404 && foreignDelete.status == 404)
            #expect(try await admin.stores.domains.domain(host: "links.beta.example") != nil)

            let records = try await admin.stores.audit.records(
                matching: AuditQuery(chain: "acme", resourceType: .linkDomain, limit: 30)
            ).items
            let outcomes = records.filter { $0.outcome.status != 403 }.reversed().map {
                "\($0.verb.rawValue):\($0.outcome.status)"
            }
            #expect(
                outcomes == [
                    "create:200", "update:200", "create:200", "create:200", "create:409",
                    "create:422", "create:422", "create:422", "create:422", "delete:204",
                ], "\(outcomes)")
            let appended = try #require(records.first { $0.verb == .update })
            #expect(
                appended.change?.after
                    == .object([
                        "appIDs": .array([.string("ABCDE12345.com.acme.app"), .string("ABCDE12345.com.acme.clip")])
                    ]))
            for chain in try await admin.stores.audit.chainNames() {
                #expect(try await AuditVerifier.verify(admin.stores.audit, chain: chain).broken == nil)
            }
        }
    }
}
