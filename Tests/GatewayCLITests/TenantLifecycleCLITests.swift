import Foundation
import GatewayCore
import GatewaySQLite
import Testing

@Suite struct TenantLifecycleCLITests {
    @Test func createListShowUpdateSuspendResumeDelete() async throws {
        let ctl = try CLIHarness()
        defer { ctl.remove() }
        let created = await ctl.run(CLIHarness.fullCreate)
        #expect(created.code == 0, "\(created.error)")
        #expect(created.output == "created tenant acme (configVersion 1)\n")

        let stored = try #require(try await ctl.store().tenant(id: "acme"))
        #expect(stored.platform.subscriptionKey?.plaintext == "ras-K1-SECRET-MARKER-a1b2")
        #expect(stored.provisioning.superAppVersion == "2.0")
        #expect(
            stored.cacheTTLs
                == CacheTTLs(manifestSeconds: 11, catalogSeconds: 12, localizationSeconds: 13, publicKeySeconds: 14))
        #expect(stored.platform.previewMode && stored.platform.requireSignatureVerification)

        let list = await ctl.run(["tenant", "list"])
        let lines = list.output.split(separator: "\n")
        #expect(
            lines.first?.split(separator: " ", omittingEmptySubsequences: true) == [
                "ID", "NAME", "STATUS", "VERSION", "UPDATED",
            ])
        #expect(lines.count == 2 && lines[1].hasPrefix("acme  Acme App  active  1"))

        let show = await ctl.run(["tenant", "show", "acme"])
        #expect(show.output.contains("ras-…a1b2"))
        #expect(show.output.contains("…c3d4"))
        #expect(!show.output.contains("K1-SECRET-MARKER"))
        #expect(show.output.contains("https://ras.example.com"))
        let revealed = await ctl.run(["tenant", "show", "acme", "--reveal"])
        #expect(revealed.output.contains("ras-K1-SECRET-MARKER-a1b2"))

        let updated = await ctl.run(["tenant", "update", "acme", "--display-name", "Acme 2", "--platform-url", ""])
        #expect(updated.code == 0)
        #expect(updated.output == "updated tenant acme (configVersion 2): changed displayName, platform.baseURL\n")
        #expect(try await ctl.store().tenant(id: "acme")?.platform.baseURL == nil)

        #expect(await ctl.run(["tenant", "suspend", "acme"]).output == "suspended tenant acme (configVersion 3)\n")
        #expect(try await ctl.store().tenant(id: "acme")?.status == .suspended)
        #expect(await ctl.run(["tenant", "resume", "acme"]).output == "resumed tenant acme (configVersion 4)\n")

        let audit = await ctl.run(["tenant", "audit", "acme", "--json"])
        let rows = try #require(try audit.json() as? [[String: Any]])
        #expect(rows.map { $0["action"] as? String } == ["resume", "suspend", "update", "create"])
        #expect(rows.allSatisfy { $0["actor"] as? String == "tester" })

        let deleted = await ctl.run(["tenant", "delete", "acme", "--yes", "--actor", "ops"])
        #expect(deleted.code == 0 && deleted.output == "deleted tenant acme\n")
        #expect(try await ctl.store().allTenants().isEmpty)
        #expect(try await ctl.store().auditLog(tenantID: "acme", limit: 1).first?.actor == "ops")
    }

    @Test("tenant list pages by id (--limit, --after), filters by --status, and says how to get the next page")
    func listPagesAndFilters() async throws {
        let ctl = try CLIHarness()
        defer { ctl.remove() }
        for id in ["delta", "alpha", "echo", "charlie", "bravo"] {
            #expect(await ctl.run(["tenant", "create", id, "--display-name", id.capitalized]).code == 0)
        }
        #expect(await ctl.run(["tenant", "suspend", "charlie"]).code == 0)
        func ids(_ arguments: [String]) async throws -> [String] {
            try #require(try await ctl.run(["tenant", "list", "--json"] + arguments).json() as? [[String: Any]])
                .compactMap { $0["id"] as? String }
        }
        #expect(try await ids([]) == ["alpha", "bravo", "charlie", "delta", "echo"])
        #expect(try await ids(["--limit", "2"]) == ["alpha", "bravo"])
        #expect(try await ids(["--limit", "2", "--after", "bravo"]) == ["charlie", "delta"])
        #expect(try await ids(["--after", "delta"]) == ["echo"])
        #expect(try await ids(["--status", "suspended"]) == ["charlie"])
        #expect(try await ids(["--status", "active", "--after", "bravo", "--limit", "1"]) == ["delta"])
        let text = await ctl.run(["tenant", "list", "--limit", "2"])
        #expect(text.output.hasSuffix("… more tenants: gatewayctl tenant list --after bravo --limit 2\n"))
        #expect(!(await ctl.run(["tenant", "list", "--limit", "5"])).output.contains("more tenants"))
        #expect(await ctl.run(["tenant", "list", "--limit", "0"]).code != 0)
        #expect(await ctl.run(["tenant", "list", "--status", "gone"]).code != 0)
    }

    @Test func jsonOutputParsesAndMasksSecrets() async throws {
        let ctl = try CLIHarness()
        defer { ctl.remove() }
        let created = await ctl.run(CLIHarness.fullCreate + ["--json"])
        let object = try #require(try created.json() as? [String: Any])
        #expect(object["id"] as? String == "acme")
        #expect(object["configVersion"] as? Int == 1)
        #expect(!created.output.contains("K1-SECRET-MARKER"))

        let list = try #require(try await ctl.run(["tenant", "list", "--json"]).json() as? [[String: Any]])
        let platform = try #require(list.first?["platform"] as? [String: Any])
        #expect(platform["subscriptionKey"] as? [String: String] == ["masked": "ras-…a1b2"])

        let shown = try #require(
            try await ctl.run(["tenant", "show", "acme", "--json", "--reveal"]).json() as? [String: Any])
        let revealed = try #require(shown["provisioning"] as? [String: Any])
        #expect(revealed["apiKey"] as? [String: String] == ["plaintext": "API-KEY-SECRET-c3d4"])

        let migrate = try #require(try await ctl.run(["migrate", "--json"]).json() as? [String: Any])
        #expect(migrate["applied"] as? [String] == SQLiteTenantStore.knownMigrations)
        #expect(migrate["newlyApplied"] as? [String] == [])
    }

    @Test func migrateReportsWhatItApplied() async throws {
        let ctl = try CLIHarness()
        defer { ctl.remove() }
        let first = await ctl.run(["migrate"])
        #expect(first.code == 0)
        #expect(
            first.output
                == "applied \(SQLiteTenantStore.knownMigrations.joined(separator: ", ")) to \(ctl.databasePath)\n")
        let second = await ctl.run(["migrate"])
        #expect(
            second.output
                == "database \(ctl.databasePath) is up to date (\(SQLiteTenantStore.knownMigrations.joined(separator: ", ")))\n"
        )
    }

    @Test func helpExitsZeroAndCompletionIsAvailable() async throws {
        let ctl = try CLIHarness()
        defer { ctl.remove() }
        let help = await ctl.run(["--help"])
        #expect(help.code == 0 && help.output.contains("USAGE: gatewayctl"))
        let createHelp = await ctl.run(["tenant", "create", "--help"])
        for flag in [
            "--display-name", "--project-id", "--subscription-key", "--platform-url", "--preview-mode",
            "--require-signature", "--provisioning-url", "--super-app-id", "--super-app-version",
            "--provisioning-api-key", "--storage-max-bytes", "--cache-max-count", "--cache-max-days",
            "--primary-color", "--secondary-color", "--manifest-ttl", "--db", "--master-key-file", "--actor", "--json",
        ] {
            #expect(createHelp.output.contains(flag), "\(flag) missing from help")
        }
        let completion = await ctl.run(["--generate-completion-script", "bash"])
        #expect(completion.code == 0 && completion.output.contains("gatewayctl"))
        #expect(!ctl.databaseExists)
    }

    @Test func developmentKeyIsGeneratedBesideTheDatabaseWithAWarning() async throws {
        var ctl = try CLIHarness()
        defer { ctl.remove() }
        ctl.environment["GATEWAY_MASTER_KEY"] = nil
        let created = await ctl.run([
            "tenant", "create", "acme", "--display-name", "Acme", "--subscription-key", "secret-value-123",
        ])
        #expect(created.code == 0)
        #expect(created.error.contains("warning: generated a new DEVELOPMENT master key"))
        let keyPath = ctl.folder + "/db/master.key"
        #expect(FileManager.default.fileExists(atPath: keyPath))
        let shown = await ctl.run(["tenant", "show", "acme", "--reveal", "--master-key-file", keyPath])
        #expect(shown.code == 0 && shown.output.contains("secret-value-123"))
        #expect(shown.error.isEmpty)

        ctl.environment["GATEWAY_ENVIRONMENT"] = "production"
        let production = await ctl.run(["tenant", "list"])
        #expect(production.code == 1)
        #expect(production.error.hasPrefix("error: no master key configured"))
    }
}
