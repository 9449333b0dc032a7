import Foundation
import GatewayCore
import NIOHTTP1
import Testing

/// Localization overrides through the admin API (issue 48) on both engines: texts set and
/// removed with the version moving and the record holding the texts before and after, pages by
/// locale then key, the default locale set and cleared, bad input refused with nothing written.
@Suite("Admin API localization")
struct AdminLocalizationAPITests {
    static let base = "/admin/v1/tenants/acme/localization"

    @Test(arguments: DatabaseBackend.available)
    func textsAndDefaultLocale(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            let token = admin.tokens["acme-admin"]
            let set = try await admin.call(
                .POST, "\(Self.base)/ja-jp/texts", token: token, body: #"{"texts": {"b.key": "ビー", "a.key": "エー"}}"#,
                contentType: "application/json")
            #expect(set.status == 200 && set.json["locale"] as? String == "ja-JP", "\(set.json)")
            #expect(set.json["keys"] as? [String] == ["a.key", "b.key"] && set.json["version"] as? Int == 1)
            _ = try await admin.call(
                .POST, "\(Self.base)/ja/texts", token: token, body: #"{"texts": {"a.key": "あ"}}"#,
                contentType: "application/json")
            let changed = try await admin.call(
                .POST, "\(Self.base)/ja-JP/texts", token: token, body: #"{"texts": {"a.key": "エー2"}}"#,
                contentType: "application/json")
            #expect(changed.json["version"] as? Int == 3)

            // Pages by locale then key ("ja" before "ja-JP"); a viewer reads, a sender does not.
            let first = try await admin.call(.GET, "\(Self.base)?limit=2", token: admin.tokens["acme-viewer"])
            let items = first.json["items"] as? [[String: Any]] ?? []
            #expect(items.map { "\($0["locale"]!)/\($0["key"]!)" } == ["ja/a.key", "ja-JP/a.key"], "\(first.json)")
            #expect(first.json["next"] as? String == "ja-JP a.key" && first.json["version"] as? Int == 3)
            let cursor = "ja-JP%20a.key"
            let rest = try await admin.call(.GET, "\(Self.base)?limit=2&cursor=\(cursor)", token: token)
            #expect((rest.json["items"] as? [[String: Any]])?.compactMap { $0["value"] as? String } == ["ビー"])
            let one = try await admin.call(.GET, "\(Self.base)?locale=ja", token: token)
            #expect((one.json["items"] as? [[String: Any]])?.count == 1)
            let sender = try await admin.call(.GET, Self.base, token: admin.tokens["acme-sender"])
            #expect(sender.status == 403 && sender.json["missingPermission"] as? String == "localization:read")

            // Bad input: a locale, a key, no texts, an unknown member; a bad locale filter.
            for (path, body) in [
                ("j1", #"{"texts": {"a": "x"}}"#), ("ja", #"{"texts": {"bad key": "x"}}"#),
                ("ja", #"{"texts": {}}"#), ("ja", #"{"texts": {"a": "x"}, "locale": "en"}"#),
            ] {
                let refused = try await admin.call(
                    .POST, "\(Self.base)/\(path)/texts", token: token, body: body, contentType: "application/json")
                #expect(
                    [400, 422].contains(refused.status) && refused.json["code"] != nil,
                    "\(path) \(body): \(refused.json)")
            }
            #expect(try await admin.call(.GET, "\(Self.base)?locale=j1", token: token).status == 400)
            #expect(try await admin.stores.localization.state(tenantID: "acme").version == 3)

            let removed = try await admin.call(.DELETE, "\(Self.base)/ja-JP/texts?key=a.key&key=missing", token: token)
            #expect(removed.status == 200 && removed.json["removed"] as? Int == 1)
            let overrides = try await admin.stores.localization.overrides(tenantID: "acme", locale: "ja-JP")
            #expect(overrides.map(\.key) == ["b.key"])

            let defaulted = try await admin.call(
                .PUT, "\(Self.base)/default-locale", token: token, body: #"{"locale": "JA"}"#,
                contentType: "application/json")
            #expect(defaulted.status == 200 && defaulted.json["defaultLocale"] as? String == "ja", "\(defaulted.json)")
            let cleared = try await admin.call(.DELETE, "\(Self.base)/default-locale", token: token)
            #expect(cleared.status == 200 && cleared.json["defaultLocale"] == nil)
            #expect(try await admin.stores.localization.state(tenantID: "acme").defaultLocale == nil)

            let records = try await admin.stores.audit.records(
                matching: AuditQuery(chain: "acme", resourceType: .localization, limit: 30)
            ).items.filter { $0.outcome.status != 403 }.reversed()
            #expect(
                records.map { "\($0.resource.id ?? ""):\($0.outcome.status)" } == [
                    "ja-JP:200", "ja:200", "ja-JP:200", "j1:422", "ja:422", "ja:422", "ja-JP:200",
                    "default-locale:200", "default-locale:200",
                ], "\(records.map { "\($0.resource.id ?? ""):\($0.outcome.status)" })")
            let edit = Array(records)[2]
            #expect(
                edit.change?.before == .object(["a.key": .string("エー")])
                    && edit.change?.after == .object(["a.key": .string("エー2")]))
            #expect(edit.resource.revisionBefore == 2 && edit.resource.revisionAfter == 3)
            let removal = Array(records)[6]
            #expect(
                removal.change?.before == .object(["a.key": .string("エー2")]) && removal.change?.after == .object([:]))
        }
    }
}
