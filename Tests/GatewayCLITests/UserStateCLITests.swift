import Foundation
import GatewayCore
import GatewaySQLite
import Testing

@Suite struct UserStateCLITests {
    /// A harness with tenant `acme` (cap 5,000 bytes).
    func harness() async throws -> CLIHarness {
        let ctl = try CLIHarness()
        #expect(
            await ctl.run(["tenant", "create", "acme", "--display-name", "Acme", "--storage-max-bytes", "5000"]).code
                == 0)
        return ctl
    }

    @Test func storageUsageAndWipe() async throws {
        let ctl = try await harness()
        defer { ctl.remove() }
        let store = SQLiteSecureStorageStore(database: try ctl.store())
        let owner = UserMiniAppKey(tenantID: "acme", userID: "alice", miniAppID: "app-1")
        try await store.put(["k": "value", "k2": "v"], for: owner, maxBytes: 5_000)
        try await store.put(
            ["x": "y"], for: UserMiniAppKey(tenantID: "acme", userID: "bob", miniAppID: "app-2"), maxBytes: 5_000)

        let table = await ctl.run(["storage", "usage", "--tenant", "acme"])
        #expect(table.code == 0)
        let lines = table.output.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines.first?.hasPrefix("USER") == true)
        #expect(
            lines[1].hasPrefix("alice") && lines[1].contains("app-1") && lines[1].contains("  9  ")
                && lines[1].contains("5000"))
        #expect(!table.output.contains("value"))

        let json = try #require(
            try await ctl.run(["storage", "usage", "--tenant", "acme", "--user", "bob", "--json"]).json()
                as? [String: Any])
        #expect(json["maxBytes"] as? Int == 5_000)
        #expect((json["usage"] as? [[String: Any]])?.map { $0["miniAppID"] as? String } == ["app-2"])

        let wipe = await ctl.run([
            "storage", "wipe", "--tenant", "acme", "--user", "alice", "--miniapp", "app-1", "--yes",
        ])
        #expect(wipe.code == 0)
        #expect(wipe.output == "wiped 2 item(s) of user alice for mini app app-1 in tenant acme\n")
        #expect(try await store.size(of: owner, maxBytes: 5_000).used == 0)
        #expect(
            try await store.size(
                of: UserMiniAppKey(tenantID: "acme", userID: "bob", miniAppID: "app-2"), maxBytes: 5_000
            ).used == 2)
    }

    @Test func l10nSetListUnsetImport() async throws {
        let ctl = try await harness()
        defer { ctl.remove() }
        #expect(
            await ctl.run([
                "l10n", "set", "--tenant", "acme", "--locale", "ja", "miniapp.sdk.ios.alert.title.ok=はい", "a.b=x=y",
            ]).code == 0)
        let list = await ctl.run(["l10n", "list", "--tenant", "acme"])
        #expect(list.output.contains("ja      a.b") || list.output.contains("a.b"))
        #expect(list.output.contains("はい"))
        let strings = ctl.folder + "/ja.strings"
        try #"""
        /* Japanese */
        "miniapp.sdk.ios.alert.title.cancel" = "キャンセル";
        // comment
        "miniapp.sdk.ios.ui.allow" = "許可\n\"OK\"";
        """#.write(toFile: strings, atomically: true, encoding: .utf8)
        #expect(await ctl.run(["l10n", "import", "--tenant", "acme", "--locale", "ja-jp", strings]).code == 0)
        let json = ctl.folder + "/fr.json"
        try #"{"miniapp.sdk.ios.ui.allow": "Autoriser"}"#.write(toFile: json, atomically: true, encoding: .utf8)
        #expect(await ctl.run(["l10n", "import", "--tenant", "acme", "--locale", "fr", json]).code == 0)
        #expect(await ctl.run(["l10n", "default", "--tenant", "acme", "--locale", "fr"]).code == 0)

        let resolver = LocalizationResolver(
            defaults: try LocalizationDefaults.builtIn(), store: SQLiteLocalizationStore(database: try ctl.store()))
        let bundle = try await resolver.bundle(tenantID: "acme", locale: "ja-JP")
        #expect(bundle.entries["miniapp.sdk.ios.ui.allow"] == "許可\n\"OK\"")
        #expect(bundle.entries["miniapp.sdk.ios.alert.title.ok"] == "はい")
        #expect(bundle.entries["a.b"] == "x=y")
        #expect(bundle.chain == ["ja-JP", "ja", "fr", "en"])

        let unset = await ctl.run(["l10n", "unset", "--tenant", "acme", "--locale", "ja", "a.b", "--json"])
        #expect(try #require(try unset.json() as? [String: Int]) == ["removed": 1])
        let rows = try #require(
            try await ctl.run(["l10n", "list", "--tenant", "acme", "--locale", "ja", "--json"]).json()
                as? [[String: Any]])
        #expect(rows.map { $0["key"] as? String } == ["miniapp.sdk.ios.alert.title.ok"])
    }

    @Test func analyticsSummary() async throws {
        let ctl = try await harness()
        defer { ctl.remove() }
        let store = SQLiteAnalyticsStore(database: try ctl.store())
        let event = AnalyticsEvent(kind: .sdk, type: "mini_app_open", miniAppID: "app-1", data: [:])
        try await store.append([event, event], tenantID: "acme", receivedAt: Date())
        try await store.append([event], tenantID: "acme", receivedAt: Date().addingTimeInterval(-3 * 86_400))
        let text = await ctl.run(["analytics", "summary", "--tenant", "acme", "--since", "24h"])
        #expect(text.code == 0)
        #expect(text.output.contains("app-1    sdk   mini_app_open  2"))
        let json = try #require(
            try await ctl.run(["analytics", "summary", "--tenant", "acme", "--since", "7d", "--json"]).json()
                as? [String: Any])
        #expect(json["total"] as? Int == 3)
    }

    @Test func domainAddListRemove() async throws {
        let ctl = try await harness()
        defer { ctl.remove() }
        let add = await ctl.run([
            "domain", "add", "--tenant", "acme", "--host", "App.Acme.com", "--app-id", "ABCDE12345.com.acme.app",
        ])
        #expect(add.code == 0)
        #expect(add.output == "tenant acme serves app.acme.com for ABCDE12345.com.acme.app\n")
        let list = try #require(try await ctl.run(["domain", "list", "--json"]).json() as? [[String: Any]])
        #expect(list.map { $0["host"] as? String } == ["app.acme.com"])
        #expect(
            await ctl.run(["domain", "remove", "--tenant", "acme", "--host", "app.acme.com"]).output
                == "removed app.acme.com from tenant acme\n")
        #expect(try await ctl.run(["domain", "list", "--json"]).json() as? [Any] != nil)
    }

    @Test("An Android app on a domain: its fingerprints merge per package and its passkey origin is printed")
    func domainAndroidApps() async throws {
        let ctl = try await harness()
        defer { ctl.remove() }
        let first = "14:6d:e9:83:c5:73:06:50:d8:ee:b9:95:2f:34:fc:64:16:a0:83:42:e6:1d:be:a8:8a:04:96:b2:3f:cf:44:e5"
        let second = String(repeating: "AB:", count: 31) + "CD"
        let add = await ctl.run([
            "domain", "add", "--tenant", "acme", "--host", "links.acme.com", "--android-app", "com.acme.app=\(first)",
        ])
        #expect(add.code == 0, "\(add.error)")
        // The base64url SHA-256 of the certificate, as Credential Manager presents the app's origin.
        #expect(add.output.contains("com.acme.app passkey origins: android:apk-key-hash:FG3pg8VzBlDY7rmVLzT8ZBagg0LmHb6oigSWsj_PROU"))
        let again = await ctl.run([
            "domain", "add", "--tenant", "acme", "--host", "links.acme.com", "--android-app", "com.acme.app=\(second)",
            "--app-id", "ABCDE12345.com.acme.app",
        ])
        #expect(again.code == 0, "\(again.error)")
        let list = try #require(try await ctl.run(["domain", "list", "--json"]).json() as? [[String: Any]])
        let apps = try #require(list.first?["androidApps"] as? [[String: Any]])
        #expect(apps.count == 1 && apps.first?["packageName"] as? String == "com.acme.app")
        #expect(apps.first?["sha256CertFingerprints"] as? [String] == [first.uppercased(), second])
        #expect(list.first?["appIDs"] as? [String] == ["ABCDE12345.com.acme.app"])
    }

    static let badCommands: [[String]] = [
        ["storage", "usage"],
        ["storage", "usage", "--tenant", "Nope!"],
        ["storage", "usage", "--tenant", "ghost"],
        ["storage", "wipe", "--tenant", "acme", "--user", "alice", "--miniapp", "app-1"],
        ["storage", "wipe", "--tenant", "acme", "--user", "", "--miniapp", "app-1", "--yes"],
        ["storage", "wipe", "--tenant", "acme", "--miniapp", "app-1", "--yes"],
        ["l10n", "set", "--tenant", "acme", "--locale", "ja"],
        ["l10n", "set", "--tenant", "acme", "--locale", "ja", "novalue"],
        ["l10n", "set", "--tenant", "acme", "--locale", "ja", "bad key=x"],
        ["l10n", "set", "--tenant", "acme", "--locale", "not a locale", "k=v"],
        ["l10n", "set", "--tenant", "acme", "--locale", "ja", "k=v", "k=w"],
        ["l10n", "set", "--tenant", "ghost", "--locale", "ja", "k=v"],
        ["l10n", "unset", "--tenant", "acme", "--locale", "ja"],
        ["l10n", "import", "--tenant", "acme", "--locale", "ja", "/nonexistent/file.json"],
        ["l10n", "import", "--tenant", "acme", "--locale", "ja", "-"],
        ["l10n", "import", "--tenant", "acme", "--locale", "ja", "--format", "strings", "-"],
        ["l10n", "default", "--tenant", "acme"],
        ["analytics", "summary", "--tenant", "acme", "--since", "yesterday"],
        ["analytics", "summary", "--tenant", "acme", "--since", "-5h"],
        ["domain", "add", "--tenant", "acme", "--host", "https://x.com", "--app-id", "ABCDE12345.a"],
        ["domain", "add", "--tenant", "acme", "--host", "x.com", "--app-id", "nope"],
        ["domain", "add", "--tenant", "acme", "--host", "x.com"],
        ["domain", "add", "--tenant", "acme", "--host", "x.com", "--android-app", "com.acme.app"],
        ["domain", "add", "--tenant", "acme", "--host", "x.com", "--android-app", "acme=" + String(repeating: "AB:", count: 31) + "CD"],
        ["domain", "add", "--tenant", "acme", "--host", "x.com", "--android-app", "com.acme.app=" + String(repeating: "AB:", count: 31) + "C"],
        ["domain", "add", "--tenant", "acme", "--host", "x.com", "--android-app", "com.acme.app=" + String(repeating: "+B:", count: 31) + "CD"],
        ["domain", "remove", "--tenant", "acme", "--host", "unknown.com"],
        ["domain", "list", "--tenant", "BAD"],
    ]

    @Test func badInputExitsTwoWithOneLineAndWritesNothing() async throws {
        let ctl = try await harness()
        defer { ctl.remove() }
        let token = try await ctl.store().changeToken()
        for arguments in Self.badCommands {
            let result = await ctl.run(arguments, stdin: "\"unterminated")
            let label = arguments.joined(separator: " ")
            #expect(result.code == 2, "\(label): exit \(result.code) \(result.error)")
            #expect(result.error.hasPrefix("error: "), "\(label): \(result.error)")
            #expect(result.error.filter { $0 == "\n" }.count == 1, "\(label): \(result.error)")
            #expect(result.output.isEmpty, "\(label): \(result.output)")
        }
        #expect(try await ctl.store().changeToken() == token)
        let overrides = try await SQLiteLocalizationStore(database: try ctl.store()).overrides(
            tenantID: "acme", locale: nil)
        #expect(overrides.isEmpty)
    }
}
