import Foundation
import GatewayCore
import Testing

@Suite struct HostAppCLITests {
    @Test func createUpdateShowAndClearHostAppFieldsAndFlags() async throws {
        let ctl = try CLIHarness()
        defer { ctl.remove() }
        #expect(await ctl.run(CLIHarness.fullCreate).code == 0)
        let created = try #require(try await ctl.store().tenant(id: "acme"))
        #expect(
            created.hostApp
                == HostAppVersionPolicy(
                    minimumVersion: "2.1", latestVersion: "2.4.0", updateURL: "https://apps.example.com/acme"))
        #expect(created.featureFlags == ["beta.checkout": true, "dark-mode": false])

        let show = await ctl.run(["tenant", "show", "acme"])
        #expect(show.output.contains("hostApp.minimumVersion"))
        #expect(show.output.contains("2.4.0"))
        #expect(show.output.contains("https://apps.example.com/acme"))
        #expect(show.output.contains("beta.checkout=true,dark-mode=false"))

        let updated = await ctl.run([
            "tenant", "update", "acme", "--host-min-version", "2.2", "--host-latest-version", "2.10",
            "--flag", "dark-mode=true", "--flag", "new-home=true", "--unset-flag", "beta.checkout", "--unset-flag",
            "never-set",
        ])
        #expect(updated.code == 0, "\(updated.error)")
        #expect(
            updated.output
                == "updated tenant acme (configVersion 2): changed hostApp.minimumVersion, hostApp.latestVersion, featureFlags\n"
        )
        let stored = try #require(try await ctl.store().tenant(id: "acme"))
        #expect(
            stored.hostApp
                == HostAppVersionPolicy(
                    minimumVersion: "2.2", latestVersion: "2.10", updateURL: "https://apps.example.com/acme"))
        #expect(stored.featureFlags == ["dark-mode": true, "new-home": true])

        let json = try #require(try await ctl.run(["tenant", "show", "acme", "--json"]).json() as? [String: Any])
        #expect(
            json["hostApp"] as? [String: String] == [
                "minimumVersion": "2.2", "latestVersion": "2.10", "updateURL": "https://apps.example.com/acme",
            ])
        #expect(json["featureFlags"] as? [String: Bool] == ["dark-mode": true, "new-home": true])

        // An empty value clears an optional field, as for every other optional flag.
        let cleared = await ctl.run(["tenant", "update", "acme", "--host-min-version", "", "--host-update-url", ""])
        #expect(
            cleared.output
                == "updated tenant acme (configVersion 3): changed hostApp.minimumVersion, hostApp.updateURL\n")
        #expect(try await ctl.store().tenant(id: "acme")?.hostApp == HostAppVersionPolicy(latestVersion: "2.10"))

        let unchanged = await ctl.run(["tenant", "update", "acme", "--unset-flag", "absent"])
        #expect(unchanged.code == 0)
        #expect(unchanged.output == "updated tenant acme (configVersion 4): no field changed\n")

        let audit = try #require(try await ctl.run(["tenant", "audit", "acme", "--json"]).json() as? [[String: Any]])
        #expect(audit.first?["changedFields"] as? [String] == [])
        #expect(
            audit.dropFirst().first?["changedFields"] as? [String] == ["hostApp.minimumVersion", "hostApp.updateURL"])
    }

    @Test func logoURLIsSetShownExportedAndCleared() async throws {
        let ctl = try CLIHarness()
        defer { ctl.remove() }
        #expect(await ctl.run(CLIHarness.fullCreate).code == 0)
        #expect(try await ctl.store().tenant(id: "acme")?.theme.logoURL == "https://cdn.example.com/acme/logo.png")
        #expect(await ctl.run(["tenant", "show", "acme"]).output.contains("https://cdn.example.com/acme/logo.png"))
        let json = try #require(try await ctl.run(["tenant", "show", "acme", "--json"]).json() as? [String: Any])
        #expect((json["theme"] as? [String: String])?["logoURL"] == "https://cdn.example.com/acme/logo.png")
        let changed = await ctl.run([
            "tenant", "update", "acme", "--logo-url", "https://cdn.example.com/acme/logo-2.png",
        ])
        #expect(changed.output == "updated tenant acme (configVersion 2): changed theme.logoURL\n")
        let cleared = await ctl.run(["tenant", "update", "acme", "--logo-url", ""])
        #expect(cleared.output == "updated tenant acme (configVersion 3): changed theme.logoURL\n")
        #expect(try await ctl.store().tenant(id: "acme")?.theme.logoURL == nil)
    }

    static let badCommands: [([String], String)] = [
        (
            ["--host-min-version", "2.x"],
            "error: --host-min-version must be a version of 1-4 dot-separated numbers of 1-6 digits (like 2.4.0), got \"2.x\"\n"
        ),
        (["--host-latest-version", "1.2.3.4.5"], "error: --host-latest-version must be a version"),
        (["--host-latest-version", "1234567"], "error: --host-latest-version must be a version"),
        // Stored latest is 2.4.0: a minimum above it is refused in the store's transaction.
        (
            ["--host-min-version", "3"],
            "error: --host-min-version must not be above the latest version \"2.4.0\", got \"3\"\n"
        ),
        (
            ["--host-min-version", "2.5", "--host-latest-version", "2.4.9"],
            "error: --host-min-version must not be above the latest version"
        ),
        (
            ["--host-update-url", "http://apps.example.com"],
            "error: --host-update-url must be an absolute https URL, got \"http://apps.example.com\"\n"
        ),
        (
            ["--host-update-url", "not a url"],
            "error: --host-update-url must be an absolute https URL, got \"not a url\"\n"
        ),
        (["--host-update-url", "https://"], "error: --host-update-url must be an absolute https URL"),
        (
            ["--logo-url", "http://cdn.example.com/logo.png"],
            "error: --logo-url must be an absolute https URL, got \"http://cdn.example.com/logo.png\"\n"
        ),
        (["--logo-url", "javascript:alert(1)"], "error: --logo-url must be an absolute https URL"),
        (
            ["--logo-url", "https://cdn.example.com/" + String(repeating: "a", count: 2100)],
            "error: --logo-url must be at most"
        ),
        (["--flag", "beta"], "error: --flag must be name=true or name=false, got \"beta\"\n"),
        (["--flag", "beta=yes"], "error: --flag must be name=true or name=false, got \"beta=yes\"\n"),
        (["--flag", "beta="], "error: --flag must be name=true or name=false"),
        (
            ["--flag", "Beta=true"],
            "error: --flag names must be a lowercase letter then up to 63 of a-z, 0-9, '_', '.', '-', got \"Beta\"\n"
        ),
        (["--flag", "=true"], "error: --flag names must be"),
        (["--flag", "a=true", "--flag", "a=false"], "error: --flag sets \"a\" to both true and false\n"),
        (["--flag", "a=true", "--unset-flag", "a"], "error: --flag and --unset-flag both name \"a\"\n"),
        (["--unset-flag", "Not Valid"], "error: --unset-flag names must be"),
        (["--unset-flag"], "error: "),
        // 2 stored flags + 99 new ones = 101.
        ((0 ..< 99).flatMap { ["--flag", "f\($0)=true"] }, "error: --flag must be at most 100 flags, got 101\n"),
    ]

    @Test func badInputExitsTwoWithOneLineAndWritesNothing() async throws {
        let ctl = try CLIHarness()
        defer { ctl.remove() }
        #expect(await ctl.run(CLIHarness.fullCreate).code == 0)
        let before = try await ctl.store().tenant(id: "acme")
        let token = try await ctl.store().changeToken()
        for (flags, expected) in Self.badCommands {
            let result = await ctl.run(["tenant", "update", "acme"] + flags)
            let label = flags.joined(separator: " ").prefix(80)
            #expect(result.code == 2, "\(label): exit \(result.code)")
            #expect(result.error.hasPrefix(expected), "\(label): \(result.error)")
            #expect(result.error.filter { $0 == "\n" }.count == 1, "\(label): \(result.error)")
            #expect(result.output.isEmpty, "\(label): \(result.output)")
        }
        for (flags, _) in Self.badCommands.prefix(3) {
            #expect(await ctl.run(["tenant", "create", "beta", "--display-name", "Beta"] + flags).code == 2)
        }
        let store = try ctl.store()
        #expect(try await store.changeToken() == token)
        #expect(try await store.tenant(id: "acme") == before)
        #expect(try await store.allTenants().map(\.id) == ["acme"])
    }

    @Test func exportImportCarriesHostAppAndFlagsAndRefusesBadOnes() async throws {
        let source = try CLIHarness()
        defer { source.remove() }
        #expect(await source.run(CLIHarness.fullCreate).code == 0)
        let export = await source.run(["tenant", "export", "acme"])
        #expect(export.code == 0)
        #expect(export.output.contains("\"minimumVersion\" : \"2.1\""))
        #expect(export.output.contains("\"dark-mode\" : false"))

        let target = try CLIHarness()
        defer { target.remove() }
        // Sealed secrets need the same master key: import the --reveal export instead.
        let revealed = await source.run(["tenant", "export", "acme", "--reveal"])
        #expect(await target.run(["tenant", "import", "-"], stdin: revealed.output).code == 0)
        let imported = try #require(try await target.store().tenant(id: "acme"))
        #expect(
            imported.hostApp
                == HostAppVersionPolicy(
                    minimumVersion: "2.1", latestVersion: "2.4.0", updateURL: "https://apps.example.com/acme"))
        #expect(imported.featureFlags == ["beta.checkout": true, "dark-mode": false])

        let token = try await target.store().changeToken()
        for (from, to) in [("\"2.1\"", "\"9.9\""), ("\"dark-mode\"", "\"Dark Mode\""), ("https://apps", "http://apps")]
        {
            let bad = revealed.output.replacingOccurrences(of: from, with: to)
            let result = await target.run(["tenant", "import", "-"], stdin: bad)
            #expect(result.code == 2, "\(to): \(result.error)")
            #expect(result.error.filter { $0 == "\n" }.count == 1)
        }
        #expect(try await target.store().changeToken() == token)
    }
}
