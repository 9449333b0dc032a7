import Foundation
import GatewayCore
import NIOHTTP1
import Testing

/// User imports as admin jobs (issue 48) on both engines: checked in the request, hashed and
/// written all or nothing by a job whose progress any caller with `user:read` reads; a taken
/// username fails the job with nothing written; a replica that stopped leaves it interrupted.
@Suite("Admin API user imports")
struct AdminUserImportAPITests {
    static let imports = "/admin/v1/tenants/acme/user-imports"

    /// Reads the job at `location` until it is no longer running (30 s at most).
    static func ended(_ admin: AdminAPITests.Admin, _ location: String, token: String?) async throws -> AdminAPITests.Reply {
        _ = try await eventually(within: .seconds(30), every: .milliseconds(50)) {
            try await admin.call(.GET, location, token: token).json["state"] as? String != "running"
        }
        return try await admin.call(.GET, location, token: token)
    }

    @Test(arguments: DatabaseBackend.available)
    func anImportRunsAsAJobAndWritesEveryUserOnce(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            let token = admin.tokens["acme-admin"]
            let body = """
                {"users": [{"username": "ann", "password": "correct horse 1", "subject": "sub-ann", "email": "ann@acme.example"},
                {"username": "ben", "password": "correct horse 2"},
                {"username": "cy", "upstreamOnly": true, "subject": "sub-cy"}]}
                """
            let started = try await admin.call(
                .POST, Self.imports, token: token, body: body, contentType: "application/json")
            #expect(started.status == 202 && started.json["total"] as? Int == 2, "\(started.json)")
            let location = try #require(started.headers["Location"].first)
            // The viewer reads it too (user:read); the sender may not.
            let ended = try await Self.ended(admin, location, token: admin.tokens["acme-viewer"])
            #expect(ended.json["state"] as? String == "succeeded" && ended.json["done"] as? Int == 2, "\(ended.json)")
            let result = try #require(ended.json["result"] as? [String: Any])
            let subjects = try #require(result["subjects"] as? [String: String])
            #expect(result["imported"] as? Int == 3 && subjects["ann"] == "sub-ann" && subjects["cy"] == "sub-cy")
            #expect(try await admin.call(.GET, location, token: admin.tokens["acme-sender"]).status == 403)
            let ann = try #require(try await admin.stores.auth.user(tenantID: "acme", username: "ann"))
            #expect(
                PasswordHasher().verify("correct horse 1", against: ann.passwordHash) && ann.email == "ann@acme.example"
            )
            #expect(try await admin.stores.auth.user(tenantID: "acme", username: "ben")?.subject == subjects["ben"])
            // One record per user, as the operator who started the job.
            let records = try await admin.stores.audit.records(
                matching: AuditQuery(chain: "acme", resourceType: .user, verb: .create, limit: 10)
            ).items
            #expect(Set(records.compactMap(\.resource.id)) == ["ann", "ben", "cy"])
            #expect(records.allSatisfy { $0.actor.name == "acme-admin" && $0.outcome.status == 201 })

            // A taken username fails the next job, and nothing of it is written.
            let clash = try await admin.call(
                .POST, Self.imports, token: token,
                body:
                    #"{"users": [{"username": "dee", "password": "correct horse 3"}, {"username": "ann", "password": "correct horse 4"}]}"#,
                contentType: "application/json")
            let failed = try await Self.ended(admin, try #require(clash.headers["Location"].first), token: token)
            #expect(failed.json["state"] as? String == "failed", "\(failed.json)")
            #expect((failed.json["error"] as? [String: Any])?["code"] as? String == "user_exists")
            #expect(try await admin.stores.auth.user(tenantID: "acme", username: "dee") == nil)
        }
    }

    @Test(arguments: DatabaseBackend.available)
    func badInputStartsNothing(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            let token = admin.tokens["acme-admin"]
            for (body, status, code) in [
                (#"{"users": [{"username": "eve", "password": "short"}]}"#, 422, "invalid_user"),
                (
                    #"{"users": [{"username": "eve", "password": "correct horse 5", "upstreamOnly": true}]}"#, 422,
                    "invalid_user"
                ),
                (
                    #"{"users": [{"username": "eve", "upstreamOnly": true}, {"username": "eve", "upstreamOnly": true}]}"#,
                    422, "invalid_user"
                ),
                (#"{"users": [{"username": "eve", "upstreamOnly": true, "totp": true}]}"#, 422, "invalid_user"),
                (#"{"users": []}"#, 422, "invalid_user"),
                (#"{"users": [{"username": "eve", "upstreamOnly": true, "role": "admin"}]}"#, 400, "invalid_request"),
            ] {
                let refused = try await admin.call(
                    .POST, Self.imports, token: token, body: body, contentType: "application/json")
                #expect(
                    refused.status == status && refused.json["code"] as? String == code, "\(body) → \(refused.json)")
            }
            #expect(try await admin.stores.auth.user(tenantID: "acme", username: "eve") == nil)
            // Another tenant's imports are not there for acme's admin; a viewer may not import.
            let beta = try await admin.call(
                .POST, "/admin/v1/tenants/beta/user-imports", token: token,
                body: #"{"users": [{"username": "eve", "upstreamOnly": true}]}"#, contentType: "application/json")
            #expect(beta.status == 404)
            let viewer = try await admin.call(
                .POST, Self.imports, token: admin.tokens["acme-viewer"],
                body: #"{"users": [{"username": "eve", "upstreamOnly": true}]}"#, contentType: "application/json")
            #expect(viewer.status == 403)
            #expect(
                try await admin.call(.GET, Self.imports + "/0000", token: token).json["code"] as? String
                    == "job_not_found")
        }
    }

    @Test(arguments: DatabaseBackend.available)
    func aJobNotHeardFromIsInterrupted(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            let then = Date().addingTimeInterval(-3 * AdminJob.heartbeat)
            let job = AdminJob(
                tenantID: "acme", kind: "user-import", total: 10, done: 4, operatorName: "acme-admin", createdAt: then,
                updatedAt: then)
            try await admin.stores.jobs.create(job)
            let read = try await admin.call(.GET, Self.imports + "/" + job.id, token: admin.tokens["acme-admin"])
            #expect(read.json["state"] as? String == "interrupted" && read.json["done"] as? Int == 4, "\(read.json)")
        }
    }
}
