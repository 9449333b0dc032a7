import Foundation
import GatewayCore
import NIOHTTP1
import Testing

/// The admin API's smaller findings of issue 62 §3, on both engines: the trail records the
/// status the caller got, a platform-wide role in a tenant is `invalid_binding`, the realm's
/// discovery names `private_key_jwt`, `If-Match` follows its pattern, and a PATCH is a merge
/// patch or nothing.
@Suite("Admin API statuses")
struct AdminAPIStatusTests {
    /// The newest record of `chain` for a resource of `type` named `id`.
    static func newest(_ admin: AdminAPITests.Admin, _ chain: String, _ type: AdminResource, _ id: String) async throws
        -> AuditRecord?
    {
        try await admin.stores.audit.records(matching: AuditQuery(chain: chain, resourceType: type, resourceID: id, limit: 1))
            .items.first
    }

    @Test(arguments: DatabaseBackend.available)
    func theTrailRecordsTheStatusTheCallerGot(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            let root = admin.tokens["root"]
            let calls: [(HTTPMethod, String, String?, String, AdminResource, String)] = [
                (.POST, "/admin/v1/tenants", #"{"id": "gamma", "displayName": "Gamma"}"#, "gamma", .tenant, "gamma"),
                (.POST, "/admin/v1/tenants/acme/clients", #"{"clientID": "web", "redirectURIs": ["https://acme.example/cb"]}"#,
                 "acme", .client, "web"),
                (.DELETE, "/admin/v1/tenants/acme/clients/web", nil, "acme", .client, "web"),
                (.POST, "/admin/v1/tenants/acme/users", #"{"username": "nina", "password": "correct horse battery"}"#,
                 "acme", .user, "nina"),
                (.POST, "/admin/v1/operators", #"{"name": "new-bot"}"#, AuditChain.platform, .operator, ""),
            ]
            for (method, path, body, chain, type, id) in calls {
                let reply = try await admin.call(method, path, token: root, body: body, contentType: "application/json")
                #expect((200..<300).contains(reply.status), "\(path): \(reply.status) \(reply.json)")
                let resourceID =
                    id.isEmpty ? try #require(try await admin.stores.operators.findOperator(named: "new-bot")).id : id
                let record = try #require(try await Self.newest(admin, chain, type, resourceID), "\(path)")
                #expect(record.outcome.status == reply.status, "\(method) \(path): answered \(reply.status), recorded \(record.outcome)")
            }
            let bot = try #require(try await admin.stores.operators.findOperator(named: "new-bot"))
            let removed = try await admin.call(.DELETE, "/admin/v1/operators/new-bot", token: root)
            #expect(removed.status == 204)
            #expect(try await Self.newest(admin, AuditChain.platform, .operator, bot.id)?.outcome.status == 204)
        }
    }

    @Test(arguments: DatabaseBackend.available)
    func discoveryIfMatchAndMergePatches(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            let metadata = try await admin.call(.GET, "/admin/.well-known/openid-configuration", token: nil)
            let methods = metadata.json["token_endpoint_auth_methods_supported"] as? [String] ?? []
            #expect(methods.contains("private_key_jwt") && methods.contains("client_secret_basic"), "\(methods)")
            #expect(metadata.json["token_endpoint_auth_signing_alg_values_supported"] as? [String] == ["ES256", "RS256"])

            let root = admin.tokens["root"]
            let body = #"{"displayName": "Renamed"}"#
            for ifMatch in [#""-1""#, #""+1""#, #""1e3""#, #""""#, "1"] {
                let refused = try await admin.call(
                    .PATCH, "/admin/v1/tenants/acme", token: root, body: body, headers: [("If-Match", ifMatch)])
                #expect(refused.status == 400 && refused.json["code"] as? String == "invalid_request", "\(ifMatch): \(refused.status)")
            }
            // Not a merge patch: 415, nothing written, with or without another Content-Type.
            let before = try #require(try await admin.stores.tenants.tenant(id: "acme"))
            for contentType in ["application/json", "text/plain", nil] {
                var request = [(String, String)]()
                if let contentType { request.append(("Content-Type", contentType)) }
                let refused = try await admin.callRaw(.PATCH, "/admin/v1/tenants/acme", token: root, body: body, headers: request)
                #expect(refused.status == 415 && refused.json["code"] as? String == "unsupported_media_type", "\(contentType ?? "none")")
            }
            #expect(try await admin.stores.tenants.tenant(id: "acme")?.displayName == before.displayName)
            // The merge patch itself, with a charset parameter, is applied.
            let applied = try await admin.callRaw(
                .PATCH, "/admin/v1/tenants/acme", token: root, body: body,
                headers: [("Content-Type", "application/merge-patch+json; charset=utf-8")])
            #expect(applied.status == 200 && applied.json["displayName"] as? String == "Renamed", "\(applied.json)")
        }
    }

    /// A user's profile is stored in columns of its own: a name, email or picture holding a
    /// control character is refused, 422, nothing written (SQLite cut "N\u{0}x" to "N", and
    /// PostgreSQL answered 500; issue 62 §2).
    @Test(arguments: DatabaseBackend.available)
    func profilesHoldNoControlCharacters(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            let root = admin.tokens["root"]
            for body in [
                #"{"username": "nina", "password": "correct horse battery", "name": "N\u0000x"}"#,
                #"{"username": "nina", "password": "correct horse battery", "email": "n@example.com\u001b"}"#,
                #"{"username": "ni\u0000na", "password": "correct horse battery"}"#,
            ] {
                let refused = try await admin.call(.POST, "/admin/v1/tenants/acme/users", token: root, body: body, contentType: "application/json")
                #expect(refused.status == 422 && refused.json["code"] as? String == "invalid_user", "\(body): \(refused.status) \(refused.json)")
            }
            #expect(try await admin.stores.auth.user(tenantID: "acme", username: "nina") == nil)
        }
    }
}


extension AdminAPITests.Admin {
    /// A call whose headers are exactly `headers` (no Content-Type added).
    func callRaw(
        _ method: HTTPMethod, _ path: String, token: String?, body: String?, headers: [(String, String)]
    ) async throws -> AdminAPITests.Reply {
        try await call(method, path, token: token, body: nil, headers: headers, rawBody: body)
    }
}
