import Foundation
import GatewayCore
import NIOHTTP1
import Testing

/// Notifications through the admin API (issue 48) on both engines: an operator's send queues
/// one delivery per recipient device with consent applying, acts once per Idempotency-Key,
/// refuses what the sending rules refuse; every sender's messages list newest first with their
/// funnel; reads and sends follow the role table; the send is recorded with its deliveries.
@Suite("Admin API notifications")
struct AdminNotificationAPITests {
    static let base = "/admin/v1/tenants/acme/notifications"

    @Test(arguments: DatabaseBackend.available)
    func sendListAndFunnel(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            let stores = admin.stores
            let now = Date()
            for (user, devices, allowed) in [("alice", 2, true), ("bob", 1, false)] {
                let owner = UserMiniAppKey(tenantID: "acme", userID: user, miniAppID: "hello")
                try await stores.consents.touch(owner)
                _ = try await stores.consents.setConsents(
                    [CustomPermission.notifications.rawValue: allowed ? .allowed : .denied], for: owner)
                for n in 0..<devices {
                    _ = try await stores.devices.register(
                        PushDevice(
                            id: "dev-\(user)-\(n)", tenantID: "acme", userID: user, provider: .fcm,
                            token: "fcm-\(user)-\(n)",
                            platform: .android, createdAt: now, updatedAt: now), maxPerUser: 20)
                }
            }
            _ = try await stores.outbox.enqueue(
                PushMessage(
                    id: "msg-sender", tenantID: "acme", clientID: "crm",
                    content: PushContent(
                        miniAppID: "hello", recipients: .users(["alice"]),
                        texts: ["default": .init(title: "t", body: "b")]),
                    createdAt: now.addingTimeInterval(-60)), idempotencyKey: nil, requestHash: "h")

            let token = admin.tokens["acme-sender"]
            let body =
                #"{"miniAppID": "hello", "userIDs": ["alice", "bob"], "texts": {"default": {"title": "Hi", "body": "B"}, "ja": {"title": "やあ", "body": "本文"}}}"#
            let sent = try await admin.call(
                .POST, Self.base, token: token, body: body, headers: [("Idempotency-Key", "k-1")],
                contentType: "application/json")
            #expect(sent.status == 202 && sent.json["deliveries"] as? Int == 3, "\(sent.json)")
            let id = try #require(sent.json["id"] as? String)
            let replay = try await admin.call(
                .POST, Self.base, token: token, body: body, headers: [("Idempotency-Key", "k-1")],
                contentType: "application/json")
            #expect(
                replay.status == 202 && replay.json["id"] as? String == id
                    && replay.headers["Idempotent-Replayed"].first == "true")
            let reused = try await admin.call(
                .POST, Self.base, token: token, body: body.replacingOccurrences(of: "Hi", with: "Ho"),
                headers: [("Idempotency-Key", "k-1")], contentType: "application/json")
            #expect(reused.status == 422 && reused.json["code"] as? String == "idempotency_key_reused")

            // The rules: no default text (422), both recipients kinds, a title past 256 (400).
            for (refusedBody, status) in [
                (#"{"miniAppID": "hello", "everyone": true, "texts": {"ja": {"title": "t", "body": "b"}}}"#, 422),
                (
                    #"{"miniAppID": "hello", "everyone": true, "userIDs": ["a"], "texts": {"default": {"title": "t", "body": "b"}}}"#,
                    400
                ),
                (
                    "{\"miniAppID\": \"hello\", \"everyone\": true, \"texts\": {\"default\": {\"title\": \"\(String(repeating: "t", count: 257))\", \"body\": \"b\"}}}",
                    400
                ),
            ] {
                let refused = try await admin.call(
                    .POST, Self.base, token: token, body: refusedBody, contentType: "application/json")
                #expect(refused.status == status && refused.json["code"] != nil, "\(refusedBody): \(refused.json)")
            }

            // Every sender's messages, newest first, with their funnel; one page at a time.
            let first = try await admin.call(.GET, "\(Self.base)?limit=1", token: admin.tokens["acme-viewer"])
            let items = first.json["items"] as? [[String: Any]] ?? []
            #expect(items.first?["id"] as? String == id && items.first?["sender"] as? String == "operator:acme-sender")
            let counts = items.first?["counts"] as? [String: Any]
            #expect(counts?["pending"] as? Int == 2 && counts?["skippedNoConsent"] as? Int == 1, "\(first.json)")
            let next = try #require(first.json["next"] as? String)
            let rest = try await admin.call(.GET, "\(Self.base)?limit=1&cursor=\(next)", token: token)
            #expect(
                (rest.json["items"] as? [[String: Any]])?.first?["sender"] as? String == "crm"
                    && rest.json["next"] == nil)
            let badCursor = try await admin.call(.GET, "\(Self.base)?cursor=nope", token: token)
            #expect(badCursor.status == 400)

            let one = try await admin.call(.GET, "\(Self.base)/\(id)", token: admin.tokens["acme-auditor"])
            #expect(one.status == 200 && one.json["locales"] as? [String] == ["default", "ja"])
            #expect((one.json["devices"] as? [[String: Any]])?.count == 3)
            let missing = try await admin.call(.GET, "\(Self.base)/msg_nope", token: token)
            #expect(missing.status == 404 && missing.json["code"] as? String == "notification_not_found")

            let viewer = try await admin.call(
                .POST, Self.base, token: admin.tokens["acme-viewer"], body: body, contentType: "application/json")
            #expect(viewer.status == 403 && viewer.json["missingPermission"] as? String == "notification:act")
            let releaser = try await admin.call(.GET, Self.base, token: admin.tokens["acme-releaser"])
            #expect(releaser.status == 403 && releaser.json["missingPermission"] as? String == "notification:read")

            let records = try await stores.audit.records(
                matching: AuditQuery(chain: "acme", resourceType: .notification, verb: .act, limit: 20)
            ).items
            let sends = records.filter { $0.outcome.status == 202 }
            #expect(sends.count == 1 && sends.first?.resource.id == id, "\(records.map(\.outcome))")
            if case .object(let after)? = sends.first?.change?.after {
                #expect(after["deliveries"] == .number(3) && after["miniAppID"] == .string("hello"))
            } else {
                Issue.record("no change recorded")
            }
            #expect(records.contains { $0.outcome.code == "invalid_notification" })
        }
    }
}
