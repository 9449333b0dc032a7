import Foundation
import GatewayCLI
import GatewayCore
import GatewaySQLite
import Testing

@Suite("gatewayctl idp, issuer and user link")
struct FederationCLITests {
    func harness() async throws -> CLIHarness {
        let ctl = try CLIHarness()
        #expect(await ctl.run(["tenant", "create", "acme", "--display-name", "Acme"]).code == 0)
        return ctl
    }

    @Test("idp add seals the secret read from stdin; list masks it (table and JSON); bad input exits 2; remove")
    func identityProviders() async throws {
        let ctl = try await harness()
        defer { ctl.remove() }
        let secret = "IDPCLISECRETMARKER-1234567890"
        let added = await ctl.run(
            [
                "idp", "add", "--tenant", "acme", "--alias", "corp", "--name", "Corp SSO", "--issuer",
                "https://id.corp.example",
                "--client-id", "gw", "--client-secret-stdin", "--auto-redirect",
            ], stdin: secret + "\n")
        #expect(added.code == 0, "\(added.error)")
        #expect(added.output.contains("/oauth2/idp/callback"))
        #expect(!added.output.contains(secret))
        let data = try Data(contentsOf: URL(fileURLWithPath: ctl.databasePath))
        #expect(data.range(of: Data(secret.utf8)) == nil)
        let stored = try await SQLiteAuthStore(tenants: try ctl.store()).identityProviders(tenantID: "acme")
        #expect(stored.first?.clientSecret == SecretValue(secret))

        let table = await ctl.run(["idp", "list", "--tenant", "acme"])
        #expect(table.output.hasPrefix("ALIAS"))
        #expect(table.output.contains("Corp SSO") && table.output.contains("auto-redirect"))
        #expect(!table.output.contains(secret))
        let json = try #require(
            try await ctl.run(["idp", "list", "--tenant", "acme", "--json"]).json() as? [[String: Any]])
        #expect(json.first?["clientSecret"] as? String == SecretValue(secret).masked)

        // Refusals: plain http off loopback, a bad alias, scopes without openid, a second auto-redirect, a duplicate.
        #expect(
            await ctl.run([
                "idp", "add", "--tenant", "acme", "--alias", "x", "--issuer", "http://id.example", "--client-id", "gw",
            ]).code == 2)
        #expect(
            await ctl.run([
                "idp", "add", "--tenant", "acme", "--alias", "Bad_Alias", "--issuer", "https://id.example",
                "--client-id", "gw",
            ]).code == 2)
        #expect(
            await ctl.run([
                "idp", "add", "--tenant", "acme", "--alias", "x", "--issuer", "https://id.example", "--client-id", "gw",
                "--scope", "profile",
            ]).code == 2)
        #expect(
            await ctl.run([
                "idp", "add", "--tenant", "acme", "--alias", "y", "--issuer", "https://id.example", "--client-id", "gw",
                "--auto-redirect",
            ]).code == 2)
        #expect(
            await ctl.run([
                "idp", "add", "--tenant", "acme", "--alias", "corp", "--issuer", "https://id.example", "--client-id",
                "gw",
            ]).code != 0)
        #expect(await ctl.run(["idp", "remove", "--tenant", "acme", "--alias", "corp"]).code == 0)
        #expect(await ctl.run(["idp", "remove", "--tenant", "acme", "--alias", "corp"]).code != 0)
    }

    @Test("issuer trust/list/untrust; user link/links/unlink")
    func issuersAndLinks() async throws {
        let ctl = try await harness()
        defer { ctl.remove() }
        #expect(
            await ctl.run([
                "issuer", "trust", "--tenant", "acme", "--issuer", "https://id.corp.example", "--audience",
                "api://acme",
            ]).code == 0)
        let issuers = try #require(
            try await ctl.run(["issuer", "list", "--tenant", "acme", "--json"]).json() as? [[String: Any]])
        #expect(issuers.first?["audience"] as? String == "api://acme")
        #expect(await ctl.run(["issuer", "list", "--tenant", "acme"]).output.contains("(discovery)"))
        #expect(
            await ctl.run(["issuer", "trust", "--tenant", "acme", "--issuer", "not a url", "--audience", "a"]).code == 2
        )
        #expect(
            await ctl.run(["issuer", "untrust", "--tenant", "acme", "--issuer", "https://id.corp.example"]).code == 0)
        #expect(
            await ctl.run(["issuer", "untrust", "--tenant", "acme", "--issuer", "https://id.corp.example"]).code != 0)

        #expect(
            await ctl.run(
                ["user", "add", "--tenant", "acme", "--username", "erin", "--password-stdin"],
                stdin: "correct horse battery\n"
            ).code == 0)
        let link = await ctl.run([
            "user", "link", "--tenant", "acme", "--username", "erin", "--issuer", "https://id.corp.example",
            "--subject", "ext-42",
        ])
        #expect(link.code == 0, "\(link.error)")
        #expect(
            await ctl.run([
                "user", "link", "--tenant", "acme", "--username", "erin", "--issuer", "https://id.corp.example",
                "--subject", "ext-42",
            ]).code != 0)
        #expect(
            await ctl.run([
                "user", "link", "--tenant", "acme", "--username", "nobody", "--issuer", "https://id.corp.example",
                "--subject", "x",
            ]).code != 0)
        let links = await ctl.run(["user", "links", "--tenant", "acme", "--username", "erin"])
        #expect(links.output.hasPrefix("ISSUER") && links.output.contains("ext-42"))
        #expect(
            await ctl.run([
                "user", "unlink", "--tenant", "acme", "--issuer", "https://id.corp.example", "--subject", "ext-42",
            ]).code == 0)
        let none = try #require(
            try await ctl.run(["user", "links", "--tenant", "acme", "--username", "erin", "--json"]).json() as? [Any])
        #expect(none.isEmpty)
    }
}
