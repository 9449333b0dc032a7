import Foundation
@testable import GatewayCLI
import GatewayCore
import GatewaySQLite
import Testing

@Suite("gatewayctl client import and user import")
struct BulkImportCLITests {
    func harness() async throws -> CLIHarness {
        let ctl = try CLIHarness()
        for tenant in ["acme", "beta"] {
            let created = await ctl.run(["tenant", "create", tenant, "--display-name", tenant])
            #expect(created.code == 0, "\(created.error)")
        }
        return ctl
    }

    func json(_ value: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: value), as: UTF8.self)
    }

    func clientIDs(_ ctl: CLIHarness, tenant: String) async throws -> [String] {
        try await SQLiteAuthStore(tenants: try ctl.store()).clients(tenantID: tenant).map(\.clientID)
    }

    @Test(
        "client import registers a file of clients in one go; a bad entry, a repeated or taken id, or an unknown field stores nothing; secrets are printed once and stored hashed; list --json imports into another tenant"
    )
    func clients() async throws {
        let ctl = try await harness()
        defer { ctl.remove() }
        var entries: [[String: Any]] = (0..<150).map {
            ["clientID": String(format: "app-%03d", $0), "redirectURIs": ["https://app.example/cb"]]
        }
        entries[7]["confidential"] = true
        entries[8].merge([
            "confidential": true, "requirePAR": true, "grantTypes": ["authorization_code"],
            "accessTokenLifetimeSeconds": 120,
        ]) { $1 }

        // Refused before anything is written: the error names the entry.
        var bad = entries
        bad[120]["redirectURIs"] = ["http://evil.example/cb"]
        let refused = await ctl.run(["client", "import", "-", "--tenant", "acme"], stdin: try json(bad))
        #expect(refused.code == 2)
        #expect(refused.error.contains("clients[120] (app-120)"), "\(refused.error)")
        var misspelt = entries
        misspelt[3]["redirectUris"] = misspelt[3].removeValue(forKey: "redirectURIs")
        let unknown = await ctl.run(["client", "import", "-", "--tenant", "acme"], stdin: try json(misspelt))
        #expect(
            unknown.code == 2 && unknown.error.contains("clients[3]: unknown field \"redirectUris\""),
            "\(unknown.error)")
        let repeated = await ctl.run(
            ["client", "import", "-", "--tenant", "acme"], stdin: try json(entries + [entries[0]]))
        #expect(repeated.code == 2 && repeated.error.contains("app-000 appears twice"), "\(repeated.error)")
        #expect(await ctl.run(["client", "import", "-", "--tenant", "acme"], stdin: "{\"clients\":[]}").code == 2)
        #expect(await ctl.run(["client", "import", "-", "--tenant", "nope"], stdin: try json(entries)).code == 2)
        #expect(try await clientIDs(ctl, tenant: "acme").isEmpty)

        // A taken id fails the whole file (the store's transaction), not just that entry.
        #expect(
            await ctl.run([
                "client", "add", "--tenant", "acme", "--client-id", "app-149", "--redirect-uri",
                "https://app.example/cb",
            ]).code == 0)
        let taken = await ctl.run(["client", "import", "-", "--tenant", "acme"], stdin: try json(entries))
        #expect(taken.code == 2 && taken.error.contains("client app-149 already exists"), "\(taken.error)")
        #expect(try await clientIDs(ctl, tenant: "acme") == ["app-149"])
        #expect(await ctl.run(["client", "remove", "--tenant", "acme", "--client-id", "app-149"]).code == 0)

        let file = ctl.folder + "/clients.json"
        try Data(try json(entries).utf8).write(to: URL(fileURLWithPath: file))
        let imported = await ctl.run(["client", "import", file, "--tenant", "acme", "--json"])
        #expect(imported.code == 0, "\(imported.error)")
        let report = try #require(try imported.json() as? [String: Any])
        #expect(report["imported"] as? Int == 150)
        let secrets = try #require(report["secrets"] as? [String: String])
        #expect(secrets.keys.sorted() == ["app-007", "app-008"])
        let store = SQLiteAuthStore(tenants: try ctl.store())
        for (id, secret) in secrets {
            #expect(
                ClientSecret.verify(
                    secret, hash: try #require(try await store.clientSecretHash(tenantID: "acme", clientID: id))))
        }
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: ctl.databasePath)).range(of: Data(secrets["app-007"]!.utf8))
                == nil)
        let app8 = try #require(try await store.client(tenantID: "acme", clientID: "app-008"))
        #expect(
            app8.confidential && app8.requirePAR && app8.grantTypes == ["authorization_code"]
                && app8.accessTokenLifetimeSeconds == 120)
        var app0 = OAuthClient(tenantID: "acme", clientID: "app-000", redirectURIs: ["https://app.example/cb"])
        // An entry that names no default scopes holds what `client add` gives.
        (app0.revision, app0.defaultScopes) = (1, ["openid", "profile", "email"])
        #expect(try await store.client(tenantID: "acme", clientID: "app-000") == app0)

        // What `client list --json` prints is an import file: the same clients land in beta.
        let listed = await ctl.run(["client", "list", "--tenant", "acme", "--json"])
        let copied = await ctl.run(["client", "import", "-", "--tenant", "beta"], stdin: listed.output)
        #expect(copied.code == 0, "\(copied.error)")
        #expect(copied.output.hasPrefix("imported 150 client(s) to tenant beta"))
        #expect(copied.output.contains("CLIENT ID") && copied.output.contains("app-008"))
        let inBeta = try await store.clients(tenantID: "beta")
        #expect(inBeta.map { var c = $0; c.tenantID = "acme"; return c } == (try await store.clients(tenantID: "acme")))
    }

    @Test(
        "user import hashes passwords with scrypt, keeps carried-over scrypt hashes and upstream-only users, and refuses a file with a bad entry, a repeated or taken username or subject, or TOTP"
    )
    func users() async throws {
        let ctl = try await harness()
        defer { ctl.remove() }
        let carried = try PasswordHasher(logN: 10).hash("carried-over-password")
        let entries: [[String: Any]] = [
            ["username": "alice", "password": "alice-password", "name": "Alice", "email": "alice@example.com"],
            ["username": "bob", "passwordHash": carried, "subject": "legacy-42", "disabled": true],
            ["username": "carol", "upstreamOnly": true],
        ]
        func refused(_ file: [[String: Any]], _ message: String) async throws {
            let run = await ctl.run(["user", "import", "-", "--tenant", "acme"], stdin: try json(file))
            #expect(run.code == 2 && run.error.contains(message), "\(run.error)")
        }
        try await refused(
            entries + [["username": "dave"]],
            "users[3] (dave): give exactly one of password, passwordHash or upstreamOnly")
        try await refused(
            entries + [["username": "dave", "password": "x", "passwordHash": carried]],
            "users[3] (dave): give exactly one")
        try await refused(
            entries + [["username": "dave", "password": "short"]], "users[3] (dave): password must be 8-1024 characters"
        )
        try await refused(entries + [["username": "dave", "passwordHash": "md5$abc"]], "passwordHash is not an scrypt")
        try await refused(
            entries + [["username": "da ve", "password": "long-enough"]], "username must be 1-200 characters")
        try await refused(
            entries + [["username": "dave", "upstreamOnly": true, "totp": true]], "TOTP secrets are not imported")
        try await refused(entries + [["username": "alice", "upstreamOnly": true]], "user alice appears twice")
        try await refused(
            entries + [["username": "eve", "upstreamOnly": true, "subject": "legacy-42"]],
            "subject legacy-42 appears twice")
        try await refused(entries + [["username": "eve", "upstreamOnly": true, "mail": "x"]], "unknown field \"mail\"")
        #expect(
            await ctl.run(
                ["user", "add", "--tenant", "acme", "--username", "carol", "--password-stdin"],
                stdin: "carol-password\n"
            ).code == 0)
        try await refused(entries, "user carol already exists")
        let store = SQLiteAuthStore(tenants: try ctl.store())
        #expect(try await store.users(tenantID: "acme").map(\.username) == ["carol"])

        let imported = await ctl.run(["user", "import", "-", "--tenant", "beta"], stdin: try json(entries))
        #expect(imported.code == 0, "\(imported.error)")
        #expect(imported.output.hasPrefix("imported 3 user(s) to tenant beta"))
        let users = try await store.users(tenantID: "beta")
        #expect(users.map(\.username) == ["alice", "bob", "carol"])
        #expect(PasswordHasher().verify("alice-password", against: users[0].passwordHash))
        #expect(users[0].name == "Alice" && users[0].email == "alice@example.com" && !users[0].disabled)
        #expect(users[1].passwordHash == carried && users[1].subject == "legacy-42" && users[1].disabled)
        #expect(PasswordHasher().verify("carried-over-password", against: users[1].passwordHash))
        #expect(users[2].passwordHash == IdentityLinker.noPassword)
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: ctl.databasePath)).range(of: Data("alice-password".utf8)) == nil)
        let listed = await ctl.run(["user", "list", "--tenant", "beta"])
        #expect(listed.output.contains("upstream") && listed.output.contains("disabled"))
    }

    @Test("the progress line: one line per 10 % in a log, rewritten in place on a terminal, nothing for small batches")
    func progress() {
        struct Terminal: CLIOutput {
            let captured = CapturedOutput()
            func writeOutput(_ text: String) { captured.writeOutput(text) }
            func writeError(_ text: String) { captured.writeError(text) }
            var errorIsTerminal: Bool { true }
        }
        let log = CapturedOutput()
        let logged = ProgressLine(
            "hashing passwords", total: 250,
            context: CLIContext(environment: [:], output: log, standardInput: { Data() }))
        for _ in 0..<250 { logged.advance() }
        logged.finish()
        let lines = log.error.split(separator: "\n")
        #expect(lines.count == 10)
        #expect(lines.first == "hashing passwords 25/250 (10%)" && lines.last == "hashing passwords 250/250 (100%)")

        let terminal = Terminal()
        let rewritten = ProgressLine(
            "hashing passwords", total: 200,
            context: CLIContext(environment: [:], output: terminal, standardInput: { Data() }))
        for _ in 0..<200 { rewritten.advance() }
        rewritten.finish()
        #expect(terminal.captured.error.components(separatedBy: "\r").count == 101)
        #expect(terminal.captured.error.hasSuffix("hashing passwords 200/200 (100%)\u{1B}[K\n"))

        let small = CapturedOutput()
        let quiet = ProgressLine(
            "hashing passwords", total: 99,
            context: CLIContext(environment: [:], output: small, standardInput: { Data() }))
        for _ in 0..<99 { quiet.advance() }
        quiet.finish()
        #expect(small.error.isEmpty)
    }
}
