import Foundation
import GatewayCore
import NIOHTTP1
import Testing

/// Users' storage and analytics through the admin API (issue 48) on both engines: usage pages
/// by user then mini app with the tenant's cap and never a value, a wipe deletes and is
/// recorded, analytics counts since a time; the roles' reads and the wipe follow the table.
@Suite("Admin API storage and analytics")
struct AdminStorageAnalyticsAPITests {
    static let base = "/admin/v1/tenants/acme"

    @Test(arguments: DatabaseBackend.available)
    func usageWipeAndSummary(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            let stores = admin.stores
            for (user, miniApp) in [("alice", "hello"), ("alice", "shop"), ("bob", "hello")] {
                let owner = UserMiniAppKey(tenantID: "acme", userID: user, miniAppID: miniApp)
                try await stores.consents.touch(owner)
                _ = try await stores.storage.put(
                    ["note": "secret-value-of-\(user)", "n": "1"], for: owner, maxBytes: 10_000)
            }
            let token = admin.tokens["acme-admin"]
            let first = try await admin.call(.GET, "\(Self.base)/storage?limit=2", token: admin.tokens["acme-viewer"])
            let usage = first.json["usage"] as? [[String: Any]] ?? []
            #expect(
                usage.map { "\($0["userID"]!)/\($0["miniAppID"]!)" } == ["alice/hello", "alice/shop"], "\(first.json)")
            #expect(usage.first?["itemCount"] as? Int == 2 && first.json["maxBytes"] as? Int != nil)
            #expect(!AdminTenantAPITests.text(first).contains("secret-value"))
            let next = try #require(first.json["next"] as? String)
            let rest = try await admin.call(.GET, "\(Self.base)/storage?limit=2&cursor=\(next)", token: token)
            #expect(
                (rest.json["usage"] as? [[String: Any]])?.compactMap { $0["userID"] as? String } == ["bob"]
                    && rest.json["next"] == nil)
            let bob = try await admin.call(.GET, "\(Self.base)/storage?user=bob", token: token)
            #expect((bob.json["usage"] as? [[String: Any]])?.count == 1)
            #expect(next == "alice/shop")
            let fromBob = try await admin.call(.GET, "\(Self.base)/storage?cursor=bob", token: token)
            #expect((fromBob.json["usage"] as? [[String: Any]])?.compactMap { $0["userID"] as? String } == ["bob"])
            let sender = try await admin.call(.GET, "\(Self.base)/storage", token: admin.tokens["acme-sender"])
            #expect(sender.status == 403 && sender.json["missingPermission"] as? String == "storage:read")

            let wiped = try await admin.call(
                .POST, "\(Self.base)/storage/wipes", token: token, body: #"{"user": "alice", "miniApp": "shop"}"#,
                contentType: "application/json")
            #expect(wiped.status == 200 && wiped.json["deletedItems"] as? Int == 2, "\(wiped.json)")
            let again = try await admin.call(
                .POST, "\(Self.base)/storage/wipes", token: token, body: #"{"user": "alice", "miniApp": "shop"}"#,
                contentType: "application/json")
            #expect(again.json["deletedItems"] as? Int == 0)
            #expect(try await stores.storage.usage(tenantID: "acme", userID: "alice").map(\.miniAppID) == ["hello"])
            let viewerWipe = try await admin.call(
                .POST, "\(Self.base)/storage/wipes", token: admin.tokens["acme-viewer"],
                body: #"{"user": "bob", "miniApp": "hello"}"#,
                contentType: "application/json")
            #expect(viewerWipe.status == 403 && viewerWipe.json["missingPermission"] as? String == "storage:delete")
            let records = try await stores.audit.records(
                matching: AuditQuery(chain: "acme", resourceType: .storage, verb: .delete, limit: 10)
            ).items.filter { $0.outcome.status == 200 }
            #expect(records.map { $0.resource.id ?? "" } == ["alice/shop", "alice/shop"])
            #expect(records.last?.change?.before == .object(["items": .number(2)]))

            try await stores.analytics.append(
                [
                    AnalyticsEvent(kind: .miniApp, type: "open", miniAppID: "hello"),
                    AnalyticsEvent(kind: .miniApp, type: "open", miniAppID: "hello"),
                ],
                tenantID: "acme", receivedAt: Date())
            let summary = try await admin.call(
                .GET, "\(Self.base)/analytics/summary", token: admin.tokens["acme-releaser"])
            #expect(summary.status == 200 && summary.json["total"] as? Int == 2, "\(summary.json)")
            let later = try await admin.call(
                .GET,
                "\(Self.base)/analytics/summary?since=\(RFC3339.millisecondString(from: Date().addingTimeInterval(60)))",
                token: token)
            #expect(later.json["total"] as? Int == 0)
            let ancient = try await admin.call(
                .GET, "\(Self.base)/analytics/summary?since=1990-01-01T00:00:00Z", token: token)
            #expect(
                ancient.status == 200 && ancient.json["total"] as? Int == 2
                    && ancient.json["since"] as? String != "1990-01-01T00:00:00.000Z")
        }
    }
}
