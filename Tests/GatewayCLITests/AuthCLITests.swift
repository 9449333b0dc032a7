import Foundation
import GatewayCLI
import GatewayCore
import GatewaySQLite
import Testing

@Suite("gatewayctl keys, client and user")
struct AuthCLITests {
    func harness() async throws -> CLIHarness {
        let ctl = try CLIHarness()
        let created = await ctl.run(["tenant", "create", "acme", "--display-name", "Acme"])
        #expect(created.code == 0, "\(created.error)")
        return ctl
    }

    @Test("keys rotate publishes a key that signs after --sign-after; retire stops one signing and unpublishes it later (at once with --now), never leaving an algorithm without a signer")
    func keys() async throws {
        let ctl = try await harness()
        defer { ctl.remove() }
        func list() async throws -> [[String: Any]] {
            try #require(try await ctl.run(["keys", "list", "--tenant", "acme", "--json"]).json() as? [[String: Any]])
        }
        func key(_ kid: String) async throws -> [String: Any] {
            try #require(try await list().first { $0["kid"] as? String == kid })
        }
        // Rotated: published now, signing after the default pre-publication window.
        let next = try #require(try await ctl.run(["keys", "rotate", "--tenant", "acme", "--json"]).json() as? [String: Any])
        #expect(next["state"] as? String == "next" && next["signing"] as? Bool == false)
        #expect(next["nextState"] as? String == "signing")
        let nextKID = try #require(next["kid"] as? String)
        // --sign-after 0 signs at once, with a warning.
        let now = await ctl.run(["keys", "rotate", "--tenant", "acme", "--sign-after", "0", "--json"])
        #expect(now.code == 0 && now.error.contains("warning: the new key signs at once"), "\(now.error)")
        let signer = try #require(try now.json() as? [String: Any])
        #expect(signer["state"] as? String == "signing")
        let signerKID = try #require(signer["kid"] as? String)
        // The signer's next step is the next key taking over.
        #expect(try await key(signerKID)["nextState"] as? String == "verify-only")
        #expect(await ctl.run(["keys", "rotate", "--tenant", "acme", "--sign-after", "soon"]).code == 2)

        // Retiring the signer brings the next key forward (warned), and the old one verifies
        // until its tokens have expired (the longest lifetime: mini-app tokens' 300 s + 60 s skew).
        let retired = await ctl.run(["keys", "retire", "--tenant", "acme", "--kid", signerKID, "--json"])
        #expect(retired.code == 0 && retired.error.contains("warning: \(nextKID) signs from now"), "\(retired.error)")
        #expect((try retired.json() as? [String: Any])?["promoted"] as? String == nextKID)
        #expect(try await key(nextKID)["state"] as? String == "signing")
        let old = try await key(signerKID)
        #expect(old["state"] as? String == "verify-only" && old["nextState"] as? String == "retired")
        let unpublish = try Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(old["unpublishAt"] as? String ?? "")
        #expect(abs(unpublish.timeIntervalSinceNow - 360) < 30, "\(unpublish)")
        // The only signer left is refused without --now, retired at once with it.
        let refused = await ctl.run(["keys", "retire", "--tenant", "acme", "--kid", nextKID])
        #expect(refused.code == 2 && refused.error.hasPrefix("error: "))
        #expect(await ctl.run(["keys", "retire", "--tenant", "acme", "--kid", nextKID, "--now"]).code == 0)
        #expect(try await key(nextKID)["state"] as? String == "retired")
        #expect(await ctl.run(["keys", "retire", "--tenant", "acme", "--kid", nextKID]).code == 2, "gone already")

        // RS256: its own signing key, counted apart from the ES256 ones when retiring.
        let rsa = await ctl.run(["keys", "rotate", "--tenant", "acme", "--alg", "RS256", "--sign-after", "0", "--json"])
        #expect(rsa.code == 0, "\(rsa.error)")
        let rsaKey = try #require(try rsa.json() as? [String: Any])
        #expect(rsaKey["alg"] as? String == "RS256" && rsaKey["signing"] as? Bool == true)
        #expect(
            await ctl.run(["keys", "retire", "--tenant", "acme", "--kid", rsaKey["kid"] as? String ?? ""]).code == 2)
        #expect(await ctl.run(["keys", "rotate", "--tenant", "acme", "--alg", "HS256"]).code == 2)
        let table = await ctl.run(["keys", "list", "--tenant", "acme"])
        #expect(table.output.hasPrefix("KID") && table.output.contains("verify-only") && table.output.contains("retired"))
    }

    @Test("with --json every keys, client and user command prints one JSON document on stdout, nothing else")
    func everyCommandHonoursJSON() async throws {
        let ctl = try await harness()
        defer { ctl.remove() }
        let steps: [(arguments: [String], stdin: String)] = [
            (["keys", "rotate", "--tenant", "acme"], ""),
            (["keys", "rotate", "--tenant", "acme"], ""),
            (["keys", "list", "--tenant", "acme"], ""),
            (
                [
                    "client", "add", "--tenant", "acme", "--client-id", "web", "--redirect-uri",
                    "https://acme.example/cb",
                ], ""
            ),
            (["client", "update", "--tenant", "acme", "--client-id", "web", "--require-par"], ""),
            (["client", "show", "--tenant", "acme", "--client-id", "web"], ""),
            (["client", "list", "--tenant", "acme"], ""),
            (["client", "remove", "--tenant", "acme", "--client-id", "web"], ""),
            (["user", "add", "--tenant", "acme", "--username", "alice", "--password-stdin"], "first-password\n"),
            (["user", "passwd", "--tenant", "acme", "--username", "alice", "--password-stdin"], "second-password\n"),
            (["user", "disable", "--tenant", "acme", "--username", "alice"], ""),
            (["user", "update", "--tenant", "acme", "--username", "alice", "--name", "Alice"], ""),
            (["user", "list", "--tenant", "acme"], ""),
        ]
        for step in steps {
            let run = await ctl.run(step.arguments + ["--json"], stdin: step.stdin)
            #expect(run.code == 0, "\(step.arguments): \(run.error)")
            #expect((try? run.json()) != nil, "\(step.arguments) printed no JSON: \(run.output)")
        }
        let keys = try #require(
            try await ctl.run(["keys", "list", "--tenant", "acme", "--json"]).json() as? [[String: Any]])
        let oldest = try #require(keys.last?["kid"] as? String)
        let retired = try #require(
            try await ctl.run(["keys", "retire", "--tenant", "acme", "--kid", oldest, "--json"]).json()
                as? [String: Any])
        #expect(retired["retired"] as? String == oldest && retired["tenant"] as? String == "acme")
        let disabled = try #require(
            try await ctl.run(["user", "disable", "--tenant", "acme", "--username", "alice", "--enable", "--json"])
                .json() as? [String: Any])
        #expect(disabled["disabled"] as? Bool == false && disabled["name"] as? String == "Alice")
    }

    @Test("client add --grant-type ciba: confidential, poll by default, ping with an https endpoint, no redirect URI")
    func cibaClients() async throws {
        let ctl = try await harness()
        defer { ctl.remove() }
        let added = await ctl.run([
            "client", "add", "--tenant", "acme", "--client-id", "tv", "--confidential", "--grant-type", "ciba",
            "--json",
        ])
        #expect(added.code == 0, "\(added.error)")
        let doc = try #require(try added.json() as? [String: Any])
        #expect((doc["clientSecret"] as? String)?.isEmpty == false)
        let store = SQLiteAuthStore(tenants: try ctl.store())
        let tv = try #require(try await store.client(tenantID: "acme", clientID: "tv"))
        #expect(tv.grantTypes == [BackchannelRules.grantType] && tv.backchannelMode == .poll)
        let ping = await ctl.run([
            "client", "add", "--tenant", "acme", "--client-id", "desk", "--confidential", "--grant-type", "ciba",
            "--ciba-mode", "ping", "--ciba-notification-endpoint", "https://desk.example/ciba", "--require-user-code",
        ])
        #expect(ping.code == 0, "\(ping.error)")
        let desk = try #require(try await store.client(tenantID: "acme", clientID: "desk"))
        #expect(desk.backchannelNotificationEndpoint == "https://desk.example/ciba")
        #expect(desk.backchannelUserCodeRequired == true && desk.backchannelMode == .ping)
        let show = await ctl.run(["client", "show", "--tenant", "acme", "--client-id", "desk"])
        #expect(show.output.contains("ping → https://desk.example/ciba, user_code required"), "\(show.output)")
        // Refused: public, ping without an endpoint, plain http off loopback, ciba flags without the grant.
        for refused in [
            ["--client-id", "a", "--grant-type", "ciba"],
            ["--client-id", "b", "--confidential", "--grant-type", "ciba", "--ciba-mode", "ping"],
            [
                "--client-id", "c", "--confidential", "--grant-type", "ciba", "--ciba-mode", "ping",
                "--ciba-notification-endpoint", "http://desk.example/ciba",
            ],
            ["--client-id", "d", "--redirect-uri", "https://x.example/cb", "--require-user-code"],
        ] {
            let run = await ctl.run(["client", "add", "--tenant", "acme"] + refused)
            #expect(run.code == 2, "\(refused): \(run.error)")
        }
    }

    @Test("client add: public by default; --confidential prints the secret once and stores only its hash")
    func clients() async throws {
        let ctl = try await harness()
        defer { ctl.remove() }
        let added = await ctl.run([
            "client", "add", "--tenant", "acme", "--client-id", "ios", "--redirect-uri", "com.acme.app:/cb",
            "--redirect-uri", "http://127.0.0.1/cb", "--dpop",
        ])
        #expect(added.code == 0, "\(added.error)")
        let secretRun = await ctl.run([
            "client", "add", "--tenant", "acme", "--client-id", "backend", "--redirect-uri", "https://acme.example/cb",
            "--confidential", "--json",
        ])
        let doc = try #require(try secretRun.json() as? [String: Any])
        let secret = try #require(doc["clientSecret"] as? String)
        let show = await ctl.run(["client", "show", "--tenant", "acme", "--client-id", "backend"])
        #expect(!show.output.contains(secret))
        let data = try Data(contentsOf: URL(fileURLWithPath: ctl.databasePath))
        #expect(data.range(of: Data(secret.utf8)) == nil)
        let store = SQLiteAuthStore(tenants: try ctl.store())
        let hash = try #require(try await store.clientSecretHash(tenantID: "acme", clientID: "backend"))
        #expect(ClientSecret.verify(secret, hash: hash))
        #expect(try await store.client(tenantID: "acme", clientID: "ios")?.dpopBound == true)
        #expect(
            await ctl.run(["client", "update", "--tenant", "acme", "--client-id", "ios", "--require-par"]).code == 0)
        #expect(try await store.client(tenantID: "acme", clientID: "ios")?.requirePAR == true)
        // ID tokens: RS256 unless the client asks for ES256.
        #expect(try await store.client(tenantID: "acme", clientID: "ios")?.idTokenAlgorithm == .rs256)
        #expect(
            await ctl.run(["client", "update", "--tenant", "acme", "--client-id", "ios", "--id-token-alg", "ES256"])
                .code == 0)
        #expect(try await store.client(tenantID: "acme", clientID: "ios")?.idTokenAlgorithm == .es256)
        #expect(
            await ctl.run(["client", "update", "--tenant", "acme", "--client-id", "ios", "--id-token-alg", "HS256"])
                .code == 2)
        // Grant types: a known subset that includes authorization_code.
        #expect(
            await ctl.run([
                "client", "update", "--tenant", "acme", "--client-id", "ios", "--grant-type", "authorization_code",
            ]).code == 0)
        #expect(try await store.client(tenantID: "acme", clientID: "ios")?.grantTypes == ["authorization_code"])
        #expect(
            await ctl.run(["client", "update", "--tenant", "acme", "--client-id", "ios", "--grant-type", "password"])
                .code == 2)
        #expect(
            await ctl.run([
                "client", "update", "--tenant", "acme", "--client-id", "ios", "--grant-type", "refresh_token",
            ]).code == 2)
        #expect(
            await ctl.run(["client", "update", "--tenant", "acme", "--client-id", "ios", "--dpop-nonce"]).code == 0)
        #expect(try await store.client(tenantID: "acme", clientID: "ios")?.dpopNonceRequired == true)
        #expect(await ctl.run(["client", "remove", "--tenant", "acme", "--client-id", "ios"]).code == 0)
        #expect(try await store.client(tenantID: "acme", clientID: "ios") == nil)

        // A sender (issue 30): client_credentials alone, confidential, with its mini apps; no redirect URI.
        let sender = await ctl.run([
            "client", "add", "--tenant", "acme", "--client-id", "shop-backend", "--confidential",
            "--grant-type", "client_credentials", "--miniapp", "shop", "--miniapp", "cart", "--scope", "notifications:send",
        ])
        #expect(sender.code == 0, "\(sender.error)")
        let stored = try await store.client(tenantID: "acme", clientID: "shop-backend")
        #expect(stored?.miniApps == ["shop", "cart"] && stored?.isSender == true)
        #expect(await ctl.run(["client", "show", "--tenant", "acme", "--client-id", "shop-backend"]).output
            .contains("sends for mini apps:  shop cart"))
        for refused in [
            ["--grant-type", "client_credentials", "--miniapp", "shop", "--scope", "notifications:send"],
            ["--confidential", "--grant-type", "client_credentials", "--scope", "notifications:send"],
            ["--confidential", "--grant-type", "client_credentials", "--miniapp", "shop"],
        ] {
            let run = await ctl.run(["client", "add", "--tenant", "acme", "--client-id", "bad-sender"] + refused)
            #expect(run.code == 2, "\(refused): \(run.error)")
        }
    }

    @Test("client add: openid profile email by default, the host app's surface with --first-party; list shows who holds it")
    func clientScopes() async throws {
        let ctl = try await harness()
        defer { ctl.remove() }
        let store = SQLiteAuthStore(tenants: try ctl.store())
        #expect(
            await ctl.run(["client", "add", "--tenant", "acme", "--client-id", "app", "--redirect-uri", "com.acme:/cb", "--first-party"])
                .code == 0)
        #expect(
            await ctl.run([
                "client", "add", "--tenant", "acme", "--client-id", "partner", "--redirect-uri", "https://p.example/cb",
                "--scope", "messages",
            ]).code == 0)
        let app = try #require(try await store.client(tenantID: "acme", clientID: "app"))
        #expect(app.defaultScopes == ["openid", "profile", "email"] + APIScope.hostApp)
        let partner = try #require(try await store.client(tenantID: "acme", clientID: "partner"))
        #expect(partner.defaultScopes == ["openid", "profile", "email"] && partner.allowedScopes == ["messages"])
        let list = await ctl.run(["client", "list", "--tenant", "acme"]).output
        #expect(list.contains("HOST-APP SCOPES"))
        let rows = list.split(separator: "\n")
        #expect(rows.first { $0.hasPrefix("app ") }?.contains("host,miniapp-data,messages,devices,sign-in-requests") == true, "\(list)")
        #expect(rows.first { $0.hasPrefix("partner ") }?.contains(" messages ") == true, "\(list)")
        #expect(await ctl.run(["client", "show", "--tenant", "acme", "--client-id", "partner"]).output.contains("default scopes:       openid profile email"))
        // Sign-in requests are the host app's alone; a list given replaces the defaults.
        let refused = await ctl.run([
            "client", "update", "--tenant", "acme", "--client-id", "partner", "--default-scope", "sign-in-requests",
        ])
        #expect(refused.code == 2 && refused.error.contains("--first-party"), "\(refused.error)")
        #expect(
            await ctl.run(["client", "update", "--tenant", "acme", "--client-id", "app", "--default-scope", "openid", "--default-scope", "host"])
                .code == 0)
        #expect(try await store.client(tenantID: "acme", clientID: "app")?.defaultScopes == ["openid", "host"])
    }

    @Test("bad client input exits 2 with one line and writes nothing")
    func badClient() async throws {
        let ctl = try await harness()
        defer { ctl.remove() }
        for args in [
            ["client", "add", "--tenant", "acme", "--client-id", "x"],
            ["client", "add", "--tenant", "acme", "--client-id", "x", "--redirect-uri", "http://evil.example/cb"],
            ["client", "add", "--tenant", "nope", "--client-id", "x", "--redirect-uri", "https://a.example/cb"],
            [
                "client", "add", "--tenant", "acme", "--client-id", "x", "--redirect-uri", "https://a.example/cb",
                "--access-token-lifetime", "0",
            ],
        ] {
            let r = await ctl.run(args)
            #expect(r.code == 2, "\(args)")
            #expect(r.error.split(separator: "\n").count == 1, "\(r.error)")
        }
        #expect(try await SQLiteAuthStore(tenants: try ctl.store()).clients(tenantID: "acme").isEmpty)
    }

    @Test("user add reads the password from stdin, hashes it with scrypt; passwd and disable work")
    func users() async throws {
        let ctl = try await harness()
        defer { ctl.remove() }
        let added = await ctl.run(
            ["user", "add", "--tenant", "acme", "--username", "alice", "--password-stdin", "--name", "Alice"],
            stdin: "first-password\n")
        #expect(added.code == 0, "\(added.error)")
        let store = SQLiteAuthStore(tenants: try ctl.store())
        let alice = try #require(try await store.user(tenantID: "acme", username: "alice"))
        #expect(alice.passwordHash.hasPrefix("scrypt$"))
        #expect(PasswordHasher().verify("first-password", against: alice.passwordHash))
        #expect(
            await ctl.run(
                ["user", "passwd", "--tenant", "acme", "--username", "alice", "--password-stdin"],
                stdin: "second-password\n"
            ).code == 0)
        #expect(await ctl.run(["user", "disable", "--tenant", "acme", "--username", "alice"]).code == 0)
        let changed = try #require(try await store.user(tenantID: "acme", username: "alice"))
        #expect(PasswordHasher().verify("second-password", against: changed.passwordHash))
        #expect(changed.disabled)
        #expect(
            await ctl.run(
                ["user", "add", "--tenant", "acme", "--username", "bob", "--password-stdin"], stdin: "short\n"
            ).code == 2)
        #expect(await ctl.run(["user", "add", "--tenant", "acme", "--username", "bob"]).code == 2)
        let list = await ctl.run(["user", "list", "--tenant", "acme"])
        #expect(list.output.hasPrefix("USERNAME"))
        #expect(list.output.contains("alice"))
        #expect(!list.output.contains("scrypt"))
        // Every list of the auth commands is a table with a header row (issue 18, item 7).
        #expect(await ctl.run(["keys", "rotate", "--tenant", "acme"]).code == 0)
        #expect(await ctl.run(["keys", "list", "--tenant", "acme"]).output.hasPrefix("KID"))
        #expect(
            await ctl.run([
                "client", "add", "--tenant", "acme", "--client-id", "ios", "--redirect-uri", "com.acme.app:/cb",
            ]).code == 0)
        let clients = await ctl.run(["client", "list", "--tenant", "acme"]).output
        #expect(clients.hasPrefix("CLIENT ID") && clients.contains("authorization_code,refresh_token"))
    }

    @Test(
        "user update --totp prints a new secret once (otpauth URI + Base32), stores it sealed, and the code it yields is accepted; --no-totp removes it; client --first-party"
    )
    func totpAndFirstParty() async throws {
        let ctl = try await harness()
        defer { ctl.remove() }
        #expect(
            await ctl.run(
                ["user", "add", "--tenant", "acme", "--username", "alice", "--password-stdin"],
                stdin: "first-password\n"
            ).code == 0)
        #expect(await ctl.run(["user", "update", "--tenant", "acme", "--username", "alice"]).code == 2)
        let setUp = await ctl.run(["user", "update", "--tenant", "acme", "--username", "alice", "--totp", "--json"])
        #expect(setUp.code == 0, "\(setUp.error)")
        let doc = try #require(try setUp.json() as? [String: Any])
        let secret = try #require(doc["totpSecret"] as? String)
        let uri = try #require(doc["otpauthURI"] as? String)
        #expect(uri.hasPrefix("otpauth://totp/acme:alice?secret=\(secret)&issuer=acme"))
        let stored = try #require(
            try await SQLiteAuthStore(tenants: try ctl.store()).user(tenantID: "acme", username: "alice")?.totpSecret)
        #expect(stored.plaintext == secret)
        let totp = try #require(TOTP(base32: secret))
        #expect(totp.matchingStep(totp.code(step: TOTP.step(at: Date())), at: Date()) != nil)
        #expect(try Data(contentsOf: URL(fileURLWithPath: ctl.databasePath)).range(of: Data(secret.utf8)) == nil)
        let list = await ctl.run(["user", "list", "--tenant", "acme"])
        #expect(list.output.contains("alice") && list.output.contains("totp") && !list.output.contains(secret))
        let removed = await ctl.run(["user", "update", "--tenant", "acme", "--username", "alice", "--no-totp"])
        #expect(removed.output.contains("TOTP removed"))
        #expect(
            try await SQLiteAuthStore(tenants: try ctl.store()).user(tenantID: "acme", username: "alice")?.totpSecret
                == nil)

        #expect(
            await ctl.run([
                "client", "add", "--tenant", "acme", "--client-id", "ios", "--redirect-uri", "com.acme.app:/cb",
                "--first-party",
            ]).code == 0)
        #expect(
            try await SQLiteAuthStore(tenants: try ctl.store()).client(tenantID: "acme", clientID: "ios")?.isFirstParty
                == true)
        #expect(
            await ctl.run(["client", "show", "--tenant", "acme", "--client-id", "ios"]).output.contains(
                "first-party:          true"))
        #expect(
            await ctl.run(["client", "update", "--tenant", "acme", "--client-id", "ios", "--no-first-party"]).code == 0)
        #expect(
            try await SQLiteAuthStore(tenants: try ctl.store()).client(tenantID: "acme", clientID: "ios")?.isFirstParty
                == false)
    }
}
