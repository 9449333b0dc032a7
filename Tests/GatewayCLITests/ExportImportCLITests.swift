import Foundation
import GatewayCore
import Testing

@Suite struct ExportImportCLITests {
    /// Creates the full tenant plus a plain one, changes them, and returns the harness.
    func populated() async throws -> CLIHarness {
        let ctl = try CLIHarness()
        #expect(await ctl.run(CLIHarness.fullCreate).code == 0)
        #expect(await ctl.run(["tenant", "create", "beta", "--display-name", "Beta"]).code == 0)
        #expect(await ctl.run(["tenant", "suspend", "beta"]).code == 0)
        return ctl
    }

    @Test(arguments: [false, true])
    func exportImportRoundTripsEveryField(reveal: Bool) async throws {
        let source = try await populated()
        defer { source.remove() }
        let file = source.folder + "/export.json"
        let export = await source.run(["tenant", "export", "--output", file] + (reveal ? ["--reveal"] : []))
        #expect(export.code == 0, "\(export.error)")
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(text.contains("K1-SECRET-MARKER") == reveal)
        #expect(text.contains("\"sealed\"") == !reveal)

        let target = try CLIHarness()
        defer { target.remove() }
        let imported = await target.run(["tenant", "import", file])
        #expect(imported.code == 0, "\(imported.error)")
        #expect(imported.output == "imported 2 tenant(s): acme, beta\n")
        let expected = try await source.store().allTenants()
        #expect(try await target.store().allTenants() == expected)
        #expect(try await target.store().auditLog(tenantID: "acme", limit: 1).first?.action == "import")
    }

    @Test(
        "an export file written inside a git work tree gets a warning naming the tree and the kind of secrets; outside, none"
    )
    func exportWarnsInsideAGitWorkTree() async throws {
        let ctl = try await populated()
        defer { ctl.remove() }
        let outside = await ctl.run(["tenant", "export", "--output", ctl.folder + "/outside.json"])
        #expect(outside.code == 0 && !outside.error.contains("warning"), "\(outside.error)")
        let repository = ctl.folder + "/repo"
        try FileManager.default.createDirectory(atPath: repository + "/.git", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: repository + "/config/prod", withIntermediateDirectories: true)
        let sealed = await ctl.run(["tenant", "export", "--output", repository + "/config/prod/tenants.json"])
        #expect(sealed.code == 0)
        #expect(
            sealed.error.contains(
                "warning: \(repository)/config/prod/tenants.json is inside the git work tree \(repository) and holds sealed secrets"
            ), "\(sealed.error)")
        let plaintext = await ctl.run(["tenant", "export", "--reveal", "--output", repository + "/tenants.json"])
        #expect(plaintext.error.contains("holds PLAINTEXT secrets"), "\(plaintext.error)")
    }

    @Test func exportToStdoutAndImportFromStdin() async throws {
        let source = try await populated()
        defer { source.remove() }
        let export = await source.run(["tenant", "export", "beta"])
        let object = try #require(try export.json() as? [String: Any])
        #expect((object["tenants"] as? [Any])?.count == 1)
        let target = try CLIHarness()
        defer { target.remove() }
        #expect(await target.run(["tenant", "import", "-"], stdin: export.output).code == 0)
        #expect(try await target.store().allTenants().map(\.id) == ["beta"])
    }

    @Test func sealedExportNeedsTheSameKey() async throws {
        let source = try await populated()
        defer { source.remove() }
        let file = source.folder + "/export.json"
        #expect(await source.run(["tenant", "export", "-o", file]).code == 0)
        var target = try CLIHarness()
        defer { target.remove() }
        target.environment["GATEWAY_MASTER_KEY"] = Data(repeating: 1, count: 32).base64EncodedString()
        let result = await target.run(["tenant", "import", file])
        #expect(result.code == 2)
        #expect(result.error.contains("wrong master key"))
        #expect(try await target.store().allTenants().isEmpty)
    }

    @Test func importWithAnInvalidSecondTenantWritesNothing() async throws {
        let ctl = try CLIHarness()
        defer { ctl.remove() }
        #expect(await ctl.run(["tenant", "create", "acme", "--display-name", "Acme"]).code == 0)
        let token = try await ctl.store().changeToken()
        let file = ctl.folder + "/bad.json"
        let json = """
            {"tenants": [
              {"id": "fresh", "displayName": "Fresh", "platform": {"subscriptionKey": "plain-secret-1"}},
              {"id": "broken", "displayName": "Broken", "platform": {"baseURL": "ftp://x"}},
              {"id": "acme", "displayName": "Replaced"}
            ]}
            """
        try json.write(toFile: file, atomically: true, encoding: .utf8)
        let result = await ctl.run(["tenant", "import", file])
        #expect(result.code == 2)
        #expect(
            result.error
                == "error: tenants[1] (broken): platform.baseURL must be an absolute http(s) URL, got \"ftp://x\"\n")
        let store = try ctl.store()
        #expect(try await store.changeToken() == token)
        #expect(try await store.allTenants().map(\.displayName) == ["Acme"])

        for bad in [
            "{not json",
            #"{"tenants":[{"id":"x1","displayName":"X","platform":{"subscriptionKey":{"masked":"ras-…a1b2"}}}]}"#,
        ] {
            try bad.write(toFile: file, atomically: true, encoding: .utf8)
            let outcome = await ctl.run(["tenant", "import", file])
            #expect(outcome.code == 2 && outcome.error.filter { $0 == "\n" }.count == 1, "\(outcome.error)")
        }
        #expect(await ctl.run(["tenant", "import", ctl.folder + "/missing.json"]).code == 2)
        #expect(try await store.changeToken() == token)
    }
}
