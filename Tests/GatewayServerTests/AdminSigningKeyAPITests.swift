import Foundation
import GatewayCore
import NIOHTTP1
import Testing

/// Signing keys through the admin API (issue 48) on both engines: rotation once per
/// Idempotency-Key and recorded without key material, retirement decided in one transaction
/// (two at once never leave an algorithm without a signer), bad input refused with nothing
/// written.
@Suite("Admin API signing keys")
struct AdminSigningKeyAPITests {
    static let keys = "/admin/v1/tenants/acme/signing-keys"

    @Test(arguments: DatabaseBackend.available)
    func rotateOncePerKeyAndRecordedWithoutKeyMaterial(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            let token = admin.tokens["acme-admin"]
            let body = #"{"alg": "ES256", "signAfterSeconds": 600}"#
            let first = try await admin.call(
                .POST, Self.keys, token: token, body: body, headers: [("Idempotency-Key", "rotate-1")],
                contentType: "application/json")
            #expect(first.status == 201, "\(first.json)")
            let kid = try #require(first.json["kid"] as? String)
            #expect(first.json["state"] as? String == "next" && first.json["nextState"] as? String == "signing")
            let again = try await admin.call(
                .POST, Self.keys, token: token, body: body, headers: [("Idempotency-Key", "rotate-1")],
                contentType: "application/json")
            #expect(again.status == 201 && again.json["kid"] as? String == kid)
            #expect(again.headers["Idempotent-Replayed"].first == "true")
            let stored = try await admin.stores.auth.signingKeys(tenantID: "acme")
            #expect(stored.map(\.kid) == [kid], "one key added for two requests under one key")
            let signFrom = try #require(stored.first?.schedule.signFrom)
            #expect(abs(signFrom.timeIntervalSince(stored[0].createdAt) - 600) < 1)

            let listed = try await admin.call(.GET, Self.keys + "?state=next", token: admin.tokens["acme-viewer"])
            #expect((listed.json["items"] as? [[String: Any]])?.compactMap { $0["kid"] as? String } == [kid])
            let signing = try await admin.call(.GET, Self.keys + "?state=signing", token: token)
            #expect((signing.json["items"] as? [[String: Any]])?.isEmpty == true)

            let record = try #require(
                try await admin.stores.audit.records(
                    matching: AuditQuery(chain: "acme", resourceType: .signingKey, limit: 5)
                ).items.first)
            #expect(record.verb == .act && record.resource.id == kid && record.actor.name == "acme-admin")
            guard case .object(let after) = record.change?.after, case .object(let entry) = after[kid] else {
                Issue.record("no change in \(record)")
                return
            }
            #expect(entry["alg"] == "ES256" && entry["signFrom"] != nil && record.change?.before == nil)
            let trail = String(decoding: try JSONEncoder().encode(record), as: UTF8.self)
            #expect(!trail.contains("PRIVATE") && !trail.contains("\"d\""))
        }
    }

    @Test(arguments: DatabaseBackend.available)
    func retireKeepsASigner(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            let token = admin.tokens["acme-admin"]
            let now = Date()
            let only = try SigningKey.generate(tenantID: "acme", now: now.addingTimeInterval(-3600))
            try await admin.stores.auth.addSigningKey(only)
            let path = "\(Self.keys)/\(only.kid)/actions"
            let refused = try await admin.call(
                .POST, path, token: token, body: #"{"action": "retire"}"#, contentType: "application/json")
            #expect(refused.status == 409 && refused.json["code"] as? String == "signing_key_conflict", "\(refused.json)")
            let missing = try await admin.call(
                .POST, "\(Self.keys)/kNOPE/actions", token: token, body: #"{"action": "retire"}"#,
                contentType: "application/json")
            #expect(missing.status == 404 && missing.json["code"] as? String == "signing_key_not_found")

            // A next key: retiring the signer brings it forward and keeps the old one published
            // for the longest token lifetime.
            let rotated = try await admin.call(
                .POST, Self.keys, token: token, body: #"{"alg": "ES256"}"#, contentType: "application/json")
            let next = try #require(rotated.json["kid"] as? String)
            let retired = try await admin.call(
                .POST, path, token: token, body: #"{"action": "retire"}"#, contentType: "application/json")
            #expect(retired.status == 200, "\(retired.json)")
            #expect(retired.json["promoted"] as? String == next && retired.json["retired"] as? String == only.kid)
            let keys = TenantKeys(try await admin.stores.auth.signingKeys(tenantID: "acme"))
            #expect(keys.signer(.es256, at: Date())?.kid == next)
            #expect(keys.published(at: Date()).contains { $0.kid == only.kid })
            let outcomes = try await admin.stores.audit.records(
                matching: AuditQuery(chain: "acme", resourceType: .signingKey, limit: 10)
            ).items.map(\.outcome.status)
            #expect(outcomes == [200, 201, 409], "retire, rotate, the refused retire: \(outcomes)")
        }
    }

    /// Two keys that may each take over from the other, retired at the same moment: one
    /// retirement wins, the other sees it and is refused; the algorithm keeps a signer.
    @Test(arguments: DatabaseBackend.available)
    func twoRetirementsAtOnceLeaveASigner(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            let token = admin.tokens["acme-admin"]
            let now = Date()
            for round in 0..<4 {
                let tenant = "acme"
                let a = try SigningKey.generate(tenantID: tenant, now: now.addingTimeInterval(-3600))
                let b = try SigningKey.generate(
                    tenantID: tenant, now: now.addingTimeInterval(-60), signFrom: now.addingTimeInterval(600))
                try await admin.stores.auth.addSigningKey(a)
                try await admin.stores.auth.addSigningKey(b)
                async let first = admin.call(
                    .POST, "\(Self.keys)/\(a.kid)/actions", token: token, body: #"{"action": "retire"}"#,
                    contentType: "application/json")
                async let second = admin.call(
                    .POST, "\(Self.keys)/\(b.kid)/actions", token: token, body: #"{"action": "retire"}"#,
                    contentType: "application/json")
                let statuses = try await [first.status, second.status].sorted()
                #expect(statuses == [200, 409], "round \(round): \(statuses)")
                let keys = TenantKeys(try await admin.stores.auth.signingKeys(tenantID: tenant))
                #expect(
                    keys.signer(.es256, at: Date()).map { [a.kid, b.kid].contains($0.kid) } == true,
                    "round \(round): one of the two still signs")
                // Clear the field for the next round: both leave at once.
                try await admin.stores.auth.scheduleSigningKeys(
                    tenantID: tenant,
                    Dictionary(uniqueKeysWithValues: keys.keys.map {
                        ($0.kid, SigningKey.Schedule(signFrom: $0.schedule.signFrom, signUntil: now, unpublishAt: now))
                    }))
            }
        }
    }

    @Test(arguments: DatabaseBackend.available)
    func badInputWritesNothing(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            for body in [
                #"{"alg": "ES384"}"#, #"{"alg": "RS256", "rsaBits": 1024}"#, #"{"alg": "ES256", "signAfterSeconds": -1}"#,
                #"{"alg": "ES256", "signAfterSeconds": 2592001}"#, #"{"alg": "ES256", "kid": "mine"}"#, #"{}"#,
            ] {
                let reply = try await admin.call(
                    .POST, Self.keys, token: admin.tokens["root"], body: body, contentType: "application/json")
                #expect(reply.status == 400 && reply.json["code"] as? String == "invalid_request", "\(body): \(reply.json)")
            }
            let action = try await admin.call(
                .POST, "\(Self.keys)/kX/actions", token: admin.tokens["root"], body: #"{"action": "delete"}"#,
                contentType: "application/json")
            #expect(action.status == 400)
            #expect(try await admin.stores.auth.signingKeys(tenantID: "acme").isEmpty)
            let viewer = try await admin.call(
                .POST, Self.keys, token: admin.tokens["acme-viewer"], body: #"{"alg": "ES256"}"#,
                contentType: "application/json")
            #expect(viewer.status == 403 && viewer.json["missingPermission"] as? String == "signing-key:act")
        }
    }
}
