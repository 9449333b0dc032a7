import Foundation
import GatewayCore
import NIOHTTP1
import Testing

/// Local users through the admin API (issue 48) on both engines: created with a password that
/// is never answered or recorded, changed at a revision, disabled with every token revoked,
/// erased; bad input refused with stable codes and nothing written.
@Suite("Admin API users")
struct AdminUserAPITests {
    static let users = "/admin/v1/tenants/acme/users"

    @Test(arguments: DatabaseBackend.available)
    func createChangeDisableErase(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            let token = admin.tokens["acme-admin"]
            let created = try await admin.call(
                .POST, Self.users, token: token,
                body: #"{"username": "alice", "password": "correct horse 42", "name": "Alice", "email": "a@acme.example", "phone": "+819012345678"}"#,
                contentType: "application/json")
            #expect(created.status == 201 && created.headers["ETag"].first == "\"1\"", "\(created.json)")
            #expect(created.json["phone"] as? String == "+819012345678")
            #expect(created.json["name"] as? String == "Alice" && created.json["password"] == nil)
            let stored = try #require(try await admin.stores.auth.user(tenantID: "acme", username: "alice"))
            #expect(PasswordHasher().verify("correct horse 42", against: stored.passwordHash))
            let again = try await admin.call(
                .POST, Self.users, token: token, body: #"{"username": "alice", "password": "another one 42"}"#,
                contentType: "application/json")
            #expect(again.status == 409 && again.json["code"] as? String == "user_exists")

            // A profile and password change at revision 1; the same If-Match again is stale.
            let patched = try await admin.call(
                .PATCH, "\(Self.users)/alice", token: token, body: #"{"email": "", "phone": "", "password": "new secret 4242"}"#,
                headers: [("If-Match", "\"1\"")])
            #expect(patched.json["phone"] == nil)
            #expect(patched.status == 200 && patched.json["email"] == nil && patched.headers["ETag"].first == "\"2\"")
            // A phone number that is not E.164 is refused, saying why; nothing written.
            let local = try await admin.call(
                .PATCH, "\(Self.users)/alice", token: token, body: #"{"phone": "090-1234-5678"}"#)
            #expect(local.status == 422 && (local.json["detail"] as? String)?.contains("E.164") == true, "\(local.json)")
            let stale = try await admin.call(
                .PATCH, "\(Self.users)/alice", token: token, body: #"{"name": "Lost"}"#, headers: [("If-Match", "\"1\"")])
            #expect(stale.status == 412 && stale.json["currentRevision"] as? String == "2", "\(stale.json)")
            let changed = try #require(try await admin.stores.auth.user(tenantID: "acme", username: "alice"))
            #expect(changed.name == "Alice" && changed.email == nil)
            #expect(PasswordHasher().verify("new secret 4242", against: changed.passwordHash))

            // Disable: the state and a revision; again: nothing written.
            let disabled = try await admin.call(
                .POST, "\(Self.users)/alice/actions", token: token, body: #"{"action": "disable"}"#,
                headers: [("If-Match", "\"2\"")], contentType: "application/json")
            #expect(disabled.status == 200 && disabled.json["disabled"] as? Bool == true, "\(disabled.json)")
            #expect(disabled.json["revokedTokens"] as? Int == 0 && disabled.json["revision"] as? Int == 3)
            let twice = try await admin.call(
                .POST, "\(Self.users)/alice/actions", token: token, body: #"{"action": "disable"}"#,
                contentType: "application/json")
            #expect(twice.status == 200 && twice.json["revision"] as? Int == 3)
            let listed = try await admin.call(.GET, "\(Self.users)?status=disabled", token: admin.tokens["acme-viewer"])
            #expect((listed.json["items"] as? [[String: Any]])?.compactMap { $0["username"] as? String } == ["alice"])

            // The trail: create, update (password as "changed", never a hash), act; the refusals.
            let records = try await admin.stores.audit.records(
                matching: AuditQuery(chain: "acme", resourceType: .user, limit: 20)
            ).items
            #expect(records.map { "\($0.verb.rawValue):\($0.outcome.status)" } == [
                "act:200", "update:412", "update:422", "update:200", "create:409", "create:201",
            ])
            let trail = String(decoding: try JSONEncoder().encode(records), as: UTF8.self)
            #expect(!trail.contains("scrypt$") && !trail.contains("correct horse") && !trail.contains("new secret"))
            #expect(trail.contains("(changed)"))

            // Erase at a stale revision: nothing erased; then at the current one.
            let staleErase = try await admin.call(.DELETE, "\(Self.users)/alice", token: token, headers: [("If-Match", "\"2\"")])
            #expect(staleErase.status == 412)
            #expect(try await admin.stores.auth.user(tenantID: "acme", username: "alice") != nil)
            let erased = try await admin.call(.DELETE, "\(Self.users)/alice", token: token, headers: [("If-Match", "\"3\"")])
            #expect(erased.status == 200 && erased.json["username"] as? String == "alice", "\(erased.json)")
            #expect(try await admin.stores.auth.user(tenantID: "acme", username: "alice") == nil)
            let gone = try await admin.call(.GET, "\(Self.users)/alice", token: token)
            #expect(gone.status == 404 && gone.json["code"] as? String == "user_not_found")
        }
    }

    @Test(arguments: DatabaseBackend.available)
    func pagesAndRoles(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            try await admin.stores.auth.addUsers(
                (0..<7).map { LocalUser(tenantID: "acme", username: "u\($0)", disabled: $0 % 3 == 0, passwordHash: "ph") })
            try await admin.stores.auth.addUser(LocalUser(tenantID: "beta", username: "b0", passwordHash: "ph"))
            let all = try await admin.pages("\(Self.users)?limit=3", key: "username", token: admin.tokens["acme-auditor"])
            #expect(all.ids == (0..<7).map { "u\($0)" } && all.replies.count == 3)
            let active = try await admin.pages("\(Self.users)?limit=2&status=active", key: "username", token: admin.tokens["root"])
            #expect(active.ids == ["u1", "u2", "u4", "u5"])
            // Another tenant's users do not exist for acme's operators; a sender reads none.
            let beta = try await admin.call(.GET, "/admin/v1/tenants/beta/users", token: admin.tokens["acme-admin"])
            #expect(beta.status == 404 && beta.json["code"] as? String == "tenant_not_found")
            let sender = try await admin.call(.GET, Self.users, token: admin.tokens["acme-sender"])
            #expect(sender.status == 403 && sender.json["missingPermission"] as? String == "user:read")
        }
    }

    @Test(arguments: DatabaseBackend.available)
    func badInputWritesNothing(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            try await admin.stores.auth.addUser(LocalUser(tenantID: "acme", username: "bob", passwordHash: "ph"))
            for (body, status, code) in [
                (#"{"username": "a b", "password": "long enough 1"}"#, 422, "invalid_user"),
                (#"{"username": "carol", "password": "short"}"#, 400, "invalid_request"),
                (#"{"username": "carol"}"#, 400, "invalid_request"),
                (#"{"username": "carol", "password": "long enough 1", "admin": true}"#, 400, "invalid_request"),
                (#"{"username": "carol", "password": "long enough 1", "name": null}"#, 400, "invalid_request"),
                ("{\"username\": \"\(String(repeating: "x", count: 201))\", \"password\": \"long enough 1\"}", 400, "invalid_request"),
            ] {
                let reply = try await admin.call(
                    .POST, Self.users, token: admin.tokens["root"], body: body, contentType: "application/json")
                #expect(reply.status == status && reply.json["code"] as? String == code, "\(body): \(reply.json)")
            }
            for (body, status) in [(#"{}"#, 400), (#"{"password": "short"}"#, 400), (#"{"subject": "x"}"#, 400)] {
                let reply = try await admin.call(.PATCH, "\(Self.users)/bob", token: admin.tokens["root"], body: body)
                #expect(reply.status == status, "\(body): \(reply.json)")
            }
            #expect(try await admin.stores.auth.users(tenantID: "acme").map(\.username) == ["bob"])
            #expect(try await admin.stores.auth.user(tenantID: "acme", username: "bob")?.revision == 1)
        }
    }
}
