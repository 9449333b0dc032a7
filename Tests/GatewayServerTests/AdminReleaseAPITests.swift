import Foundation
import GatewayCore
import NIOHTTP1
import Testing

/// Release policies through the admin API (issue 48) on both engines: two operators acting
/// on the same revision (one 200, one 412, both audited, nothing lost), bad input refused
/// with stable codes and nothing written, history and trail naming the operator.
@Suite("Admin API release policies")
struct AdminReleaseAPITests {
    static let policy = "/admin/v1/tenants/acme/miniapps/hello/release"

    @Test(arguments: DatabaseBackend.available)
    func twoOperatorsOnOneRevision(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            let missing = try await admin.call(.GET, Self.policy, token: admin.tokens["root"])
            #expect(missing.status == 404 && missing.json["code"] as? String == "release_not_found")

            let created = try await admin.call(
                .PATCH, Self.policy, token: admin.tokens["acme-releaser"],
                body: #"{"stable": "v1", "candidate": {"version": "v2", "percent": 10}, "reason": "first customers"}"#)
            #expect(created.status == 200, "\(created.json)")
            #expect(created.headers["ETag"].first == "\"1\"")
            let candidate = try #require(created.json["candidate"] as? [String: Any])
            #expect(candidate["version"] as? String == "v2" && candidate["percent"] as? String == "10")
            #expect(candidate["state"] as? String == "active" && created.json["stable"] as? String == "v1")

            let read = try await admin.call(.GET, Self.policy, token: admin.tokens["acme-viewer"])
            let etag = try #require(read.headers["ETag"].first)
            async let pause = admin.call(
                .POST, "\(Self.policy)/actions", token: admin.tokens["acme-releaser"],
                body: #"{"action": "pause", "reason": "looking"}"#, headers: [("If-Match", etag)], contentType: "application/json")
            async let rollback = admin.call(
                .POST, "\(Self.policy)/actions", token: admin.tokens["root"],
                body: #"{"action": "rollback", "to": "v1"}"#, headers: [("If-Match", etag)], contentType: "application/json")
            let replies = try await [pause, rollback]
            #expect(replies.map(\.status).sorted() == [200, 412], "\(replies.map(\.json))")
            let lost = try #require(replies.first { $0.status == 412 })
            #expect(lost.json["code"] as? String == "precondition_failed" && lost.json["currentRevision"] as? String == "2")
            let won = try #require(replies.first { $0.status == 200 })
            #expect(won.headers["ETag"].first == "\"2\"" && lost.headers["ETag"].first == "\"2\"")

            // Nothing lost: the stored policy is the winner's, its history has both writes.
            let stored = try #require(try await admin.stores.releases.policy(tenantID: "acme", miniAppID: "hello"))
            #expect(stored.revision == 2)
            #expect(won.json["candidate"] == nil ? stored.candidate == nil : stored.candidate?.state == .paused)
            let history = try await admin.call(.GET, "\(Self.policy)/history", token: admin.tokens["acme-auditor"])
            let actions = (history.json["items"] as? [[String: Any]] ?? []).compactMap { $0["action"] as? String }
            #expect(actions.count == 2 && actions.last == "set", "\(history.json)")
            #expect((history.json["items"] as? [[String: Any]])?.last?["reason"] as? String == "first customers")

            // Both audited: the create, the winner and the refusal, with revisions.
            let records = try await admin.stores.audit.records(
                matching: AuditQuery(chain: "acme", resourceType: .release, limit: 10)
            ).items
            #expect(records.map(\.outcome.status).sorted() == [200, 200, 412], "\(records.map(\.outcome))")
            let change = try #require(records.first { $0.verb == .act && $0.outcome.status == 200 })
            #expect(change.resource.revisionBefore == 1 && change.resource.revisionAfter == 2 && change.resource.id == "hello")
            guard case .object(let before) = change.change?.before, case .object(let after) = change.change?.after else {
                Issue.record("the change has no before and after: \(String(describing: change.change))")
                return
            }
            #expect(before["revision"] == .number(1) && after["revision"] == .number(2))
            let first = try #require(records.first { $0.verb == .update })
            #expect(first.change?.before == nil && first.actor.name == "acme-releaser")
            #expect(try await AuditVerifier.verify(admin.stores.audit, chain: "acme").broken == nil)
        }
    }

    @Test(arguments: DatabaseBackend.available)
    func badInputWritesNothing(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            let root = admin.tokens["root"]
            let created = try await admin.call(
                .PATCH, Self.policy, token: root, body: #"{"candidate": {"version": "v2", "percent": 5}}"#)
            #expect(created.status == 200)
            let long = String(repeating: "v", count: 65)
            for (method, suffix, body, status, code) in [
                (HTTPMethod.PATCH, "", #"{"candidate": {"percent": 150}}"#, 422, "invalid_release"),
                (.PATCH, "", #"{"candidate": {"percent": 12.345}}"#, 422, "invalid_release"),
                (.PATCH, "", #"{"candidate": {"version": "v/2"}}"#, 422, "invalid_release"),
                (.PATCH, "", "{\"stable\": \"\(long)\"}", 400, "invalid_request"),
                (.PATCH, "", #"{"stable": null}"#, 400, "invalid_request"),
                (.PATCH, "", #"{"candidate": {}, "stable": "v1"}"#, 400, "invalid_request"),
                (.PATCH, "", #"{"stable": "v1", "owner": "me"}"#, 400, "invalid_request"),
                (.PATCH, "", #"{"reason": "nothing else"}"#, 400, "invalid_request"),
                (.POST, "/actions", #"{"action": "explode"}"#, 400, "invalid_request"),
                (.POST, "/actions", #"{"action": "rollback"}"#, 400, "invalid_request"),
                (.POST, "/actions", #"{"action": "resume"}"#, 409, "release_state_conflict"),
                (.POST, "/actions", #"{"action": "pause", "extra": 1}"#, 400, "invalid_request"),
            ] {
                let refused = try await admin.call(
                    method, Self.policy + suffix, token: root, body: body,
                    contentType: method == .POST ? "application/json" : "application/merge-patch+json")
                #expect(refused.status == status && refused.json["code"] as? String == code, "\(body): \(refused.status) \(refused.json)")
            }
            let stored = try #require(try await admin.stores.releases.policy(tenantID: "acme", miniAppID: "hello"))
            #expect(stored.revision == 1 && stored.candidate?.percent.basisPoints == 500)
            let elsewhere = try await admin.call(.GET, "/admin/v1/tenants/nowhere/miniapps/hello/release", token: root)
            #expect(elsewhere.status == 404 && elsewhere.json["code"] as? String == "tenant_not_found")
        }
    }
}

extension AdminReleaseAPITests {
    /// An action retried with its Idempotency-Key acts once and answers the first answer
    /// again; the key on another request is refused; no key acts every time.
    @Test(arguments: DatabaseBackend.available)
    func idempotencyKeyActsOnce(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            let token = admin.tokens["acme-releaser"]
            _ = try await admin.call(.PATCH, Self.policy, token: token, body: #"{"candidate": {"version": "v2", "percent": 5}}"#)
            func withdraw(_ version: String, key: String?) async throws -> AdminAPITests.Reply {
                try await admin.call(
                    .POST, "\(Self.policy)/actions", token: token, body: "{\"action\": \"withdraw\", \"version\": \"\(version)\"}",
                    headers: key.map { [("Idempotency-Key", $0)] } ?? [], contentType: "application/json")
            }
            let first = try await withdraw("v0", key: "retry-1")
            let again = try await withdraw("v0", key: "retry-1")
            #expect(first.status == 200 && again.status == 200)
            #expect(first.headers["Idempotent-Replayed"].isEmpty && again.headers["Idempotent-Replayed"].first == "true")
            #expect(again.headers["ETag"].first == "\"2\"" && again.json["revision"] as? Int == 2)
            #expect(try await admin.stores.releases.policy(tenantID: "acme", miniAppID: "hello")?.revision == 2)

            let reused = try await withdraw("v9", key: "retry-1")
            #expect(reused.status == 422 && reused.json["code"] as? String == "idempotency_key_reused")
            let badKey = try await withdraw("v0", key: String(repeating: "k", count: 256))
            #expect(badKey.status == 400)
            // Another operator's key of the same name is its own; no key acts each time.
            let root = try await admin.call(
                .POST, "\(Self.policy)/actions", token: admin.tokens["root"], body: #"{"action": "withdraw", "version": "v0"}"#,
                headers: [("Idempotency-Key", "retry-1")], contentType: "application/json")
            #expect(root.status == 200 && root.headers["Idempotent-Replayed"].isEmpty && root.json["revision"] as? Int == 3)
            #expect(try await withdraw("v0", key: nil).json["revision"] as? Int == 4)
            #expect(try await withdraw("v0", key: nil).json["revision"] as? Int == 5)
            // A refused action leaves its key free: the retry acts.
            let paused = try await admin.call(
                .POST, "\(Self.policy)/actions", token: token, body: #"{"action": "resume"}"#,
                headers: [("Idempotency-Key", "resume-1")], contentType: "application/json")
            #expect(paused.status == 409)
            _ = try await admin.call(
                .POST, "\(Self.policy)/actions", token: token, body: #"{"action": "pause"}"#, contentType: "application/json")
            let resumed = try await admin.call(
                .POST, "\(Self.policy)/actions", token: token, body: #"{"action": "resume"}"#,
                headers: [("Idempotency-Key", "resume-1")], contentType: "application/json")
            #expect(resumed.status == 200, "\(resumed.json)")
            let acts = try await admin.stores.audit.records(
                matching: AuditQuery(chain: "acme", resourceType: .release, verb: .act, limit: 50)
            ).items.filter { $0.outcome.status == 200 }
            #expect(acts.count == 6)
        }
    }
}
