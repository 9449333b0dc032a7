import AsyncHTTPClient
import Crypto
import AdminAPI
import Foundation
import GatewayCLI
import GatewayCore
import Testing

/// gatewayctl over the admin API (issue 48) on both engines: every command that has both
/// paths prints byte-identical `--json` locally and over the API; `login` keeps a token
/// (never the secret) in a file only its owner reads and later commands go through the
/// API; a command without an API refuses `--server` rather than touch the database.
@Suite("gatewayctl over the admin API")
struct AdminCLITests {
    struct Run {
        var code: Int32
        var output: String
        var error: String
    }

    static func ctl(_ environment: [String: String], _ arguments: [String], stdin: String = "") async -> Run {
        let output = CapturedOutput()
        let input = Data(stdin.utf8)
        let code = await Gatewayctl.run(
            arguments: arguments, environment: environment, standardInput: { input }, output: output)
        return Run(code: code, output: output.output, error: output.error)
    }

    static func seed(_ admin: AdminAPITests.Admin) async throws {
        let candidate = ReleaseCandidate(
            version: "v2", percent: RolloutPercent(basisPoints: 1_250)!, allowUsers: ["u2", "u1"], denyUsers: ["u9"])
        try await admin.stores.releases.save(
            ReleasePolicy(
                tenantID: "acme", miniAppID: "hello", stable: "v1", candidate: candidate,
                withdrawn: [WithdrawnVersion(version: "v0", useInstead: nil)],
                autoHalt: AutoHaltRule(errorRatio: 2.5, minOpens: 100)),
            entry: ReleaseHistoryEntry(
                at: Date(timeIntervalSince1970: 1_800_000_000.123), actor: "ops", action: .set, summary: "first",
                reason: "launch"))
        try await admin.stores.tenants.update(id: "acme", actor: "t") { tenant in
            tenant.platform.subscriptionKey = SecretValue("sk-acme-secret-0042")
            tenant.featureFlags = ["beta": true]
            tenant.ras = tenant.ras.rotated(to: "client-key-0123456789", overlap: 0, now: Date())
        }
        // Keys in three phases: retired, signing, next (a second algorithm too).
        let now = Date()
        let old = try SigningKey.generate(tenantID: "acme", now: now.addingTimeInterval(-7200))
        let signing = try SigningKey.generate(tenantID: "acme", now: now.addingTimeInterval(-3600))
        let next = try SigningKey.generate(tenantID: "acme", now: now, signFrom: now.addingTimeInterval(86400))
        let rsa = try SigningKey.generate(tenantID: "acme", algorithm: .rs256, now: now.addingTimeInterval(-60))
        for key in [old, signing, next, rsa] { try await admin.stores.auth.addSigningKey(key) }
        try await admin.stores.pushCredentials.setCredentials(
            .apns(
                try APNsCredentials(
                    keyID: "ABC123DEFG", teamID: "TEAM123456", topic: "com.acme.app", environment: .sandbox,
                    privateKey: P256.Signing.PrivateKey().pemRepresentation)),
            tenantID: "acme", now: Date())
        try await admin.stores.domains.add(
            host: "links.acme.example", tenantID: "acme", appIDs: ["ABCDE12345.com.acme.app", "ABCDE12345.com.acme.clip"])
        try await admin.stores.auth.trustIssuer(
            TrustedIssuer(
                tenantID: "acme", issuer: "https://login.partner.example", audience: "acme-api",
                introspection: .init(clientID: "gw", clientSecret: SecretValue("partner-secret-0042"))))
        try await admin.stores.auth.addIdentityProvider(
            IdentityProvider(
                tenantID: "acme", alias: "partner", issuer: "https://login.partner.example", clientID: "gw",
                clientSecret: SecretValue("idp-secret-0042"), autoRedirect: true))
        for (user, miniApp) in [("s1", "hello"), ("s1", "shop"), ("s2", "hello")] {
            let owner = UserMiniAppKey(tenantID: "acme", userID: user, miniAppID: miniApp)
            try await admin.stores.consents.touch(owner)
            _ = try await admin.stores.storage.put(["k": "v"], for: owner, maxBytes: 10_000)
        }
        try await admin.stores.analytics.append(
            [AnalyticsEvent(kind: .miniApp, type: "open", miniAppID: "hello")], tenantID: "acme", receivedAt: Date())
        try await admin.stores.localization.set(["b.key": "ビー", "a.key": "エー"], tenantID: "acme", locale: "ja")
        try await admin.stores.localization.set(["a.key": "A"], tenantID: "acme", locale: "en-GB")
        try await admin.stores.auth.addUsers([
            LocalUser(tenantID: "acme", username: "zoe", name: "Zoe", email: "z@acme.example", passwordHash: "ph"),
            LocalUser(tenantID: "acme", username: "yan", disabled: true, passwordHash: IdentityLinker.noPassword,
                totpSecret: SecretValue("JBSWY3DPEHPK3PXP")),
        ])
        try await admin.stores.auth.scheduleSigningKeys(
            tenantID: "acme",
            [old.kid: SigningKey.Schedule(signFrom: old.schedule.signFrom, signUntil: now.addingTimeInterval(-3600), unpublishAt: now.addingTimeInterval(-60))])
        let keys: JSONValue = .object(["keys": .array([.object([
            "kty": "EC", "crv": "P-256", "kid": "k1", "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
            "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0",
        ])])])
        var keyed = OAuthClient(tenantID: "acme", clientID: "acme-keys", confidential: true, redirectURIs: [])
        (keyed.grantTypes, keyed.miniApps, keyed.jwks, keyed.allowedScopes) = (["client_credentials"], ["hello"], keys, ["notifications:send"])
        try await admin.stores.auth.addClients([
            NewClient(
                OAuthClient(
                    tenantID: "acme", clientID: "acme-web", confidential: true, redirectURIs: ["https://acme.example/cb"],
                    idTokenSigningAlgorithm: .es256),
                secretHash: ClientSecret.generate().hash),
            NewClient(keyed, secretHash: nil),
        ])
        // Records in the tenant's chain: an allowed change and a refusal through the API.
        _ = try await admin.call(
            .PATCH, "/admin/v1/tenants/acme", token: admin.tokens["acme-admin"], body: #"{"displayName": "Acme Ltd"}"#)
        _ = try await admin.call(
            .PATCH, "/admin/v1/tenants/acme", token: admin.tokens["acme-viewer"], body: #"{"displayName": "Nope"}"#)
    }

    @Test(arguments: DatabaseBackend.available)
    func sameJSONBothPaths(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            try await Self.seed(admin)
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("gatewayctl-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: home) }
            let local = admin.databaseEnvironment.merging(["USER": "tester", "GATEWAYCTL_HOME": home]) { $1 }
            let remote = local.merging(["GATEWAY_ADMIN_TOKEN": admin.tokens["root"]!]) { $1 }
            let server = "http://127.0.0.1:\(admin.port)"
            let commands: [[String]] = [
                ["release", "show", "--tenant", "acme", "hello"],
                ["release", "history", "--tenant", "acme", "hello"],
                ["audit", "list", "--tenant", "acme"],
                ["audit", "list", "--tenant", "acme", "--limit", "1"],
                ["audit", "list", "--platform", "--resource", "operator"],
                ["audit", "list", "--operator", "acme-viewer"],
                ["audit", "list", "--verb", "update", "--since", "2020-01-01T00:00:00Z"],
                ["tenant", "list"],
                ["tenant", "list", "--limit", "1"],
                ["tenant", "list", "--after", "acme", "--status", "active"],
                ["tenant", "show", "acme"],
                ["client", "list", "--tenant", "acme"],
                ["client", "show", "--tenant", "acme", "--client-id", "acme-web"],
                ["client", "show", "--tenant", "acme", "--client-id", "acme-keys"],
                ["keys", "list", "--tenant", "acme"],
                ["user", "list", "--tenant", "acme"],
                ["push", "apns", "show", "--tenant", "acme"],
                ["domain", "list", "--tenant", "acme"],
                ["issuer", "list", "--tenant", "acme"],
                ["idp", "list", "--tenant", "acme"],
                ["l10n", "list", "--tenant", "acme"],
                ["l10n", "list", "--tenant", "acme", "--locale", "JA"],
                ["storage", "usage", "--tenant", "acme"],
                ["analytics", "summary", "--tenant", "acme", "--since", "2020-01-01T00:00:00Z"],
            ]
            for command in commands {
                let onDatabase = await Self.ctl(local, command + ["--json"])
                let overAPI = await Self.ctl(remote, command + ["--json", "--server", server])
                #expect(onDatabase.code == 0 && overAPI.code == 0, "\(command): \(onDatabase.error) \(overAPI.error)")
                #expect(!onDatabase.output.isEmpty && onDatabase.output == overAPI.output, "\(command)")
                if onDatabase.output != overAPI.output {
                    print("--- database\n\(onDatabase.output)--- API\n\(overAPI.output)")
                }
            }
            // The same refusal on both paths: no policy there.
            let missing = await Self.ctl(remote, ["release", "show", "--tenant", "acme", "other", "--server", server])
            #expect(missing.code == 2 && missing.error.contains("release_not_found"), "\(missing.error)")
            // A command that has no API yet refuses the server rather than open the database.
            let refused = await Self.ctl(remote, ["tenant", "audit", "acme", "--server", server])
            #expect(refused.code == 2 && refused.error.contains("does not go through the admin API yet"), "\(refused.error)")
            #expect(await Self.ctl(remote, ["tenant", "audit", "acme", "--server", server, "--local"]).code == 0)
            let reveal = await Self.ctl(remote, ["tenant", "show", "acme", "--reveal", "--server", server])
            #expect(reveal.code == 2 && reveal.error.contains("--reveal needs --local"), "\(reveal.error)")

            // Writes: the same command on each path prints the same document but for what
            // every write moves (its revision and time; a created tenant's id and times).
            var writes: [(local: [String], remote: [String])] = [
                (["tenant", "update", "acme", "--display-name", "Acme X", "--project-id", "p-7", "--flag", "new=true",
                  "--unset-flag", "beta", "--logo-url", "https://acme.example/l.png"],
                 ["tenant", "update", "acme", "--display-name", "Acme X", "--project-id", "p-7", "--flag", "new=true",
                  "--unset-flag", "beta", "--logo-url", "https://acme.example/l.png"]),
                (["tenant", "suspend", "beta"], ["tenant", "suspend", "beta"]),
                (["tenant", "resume", "beta"], ["tenant", "resume", "beta"]),
                (["tenant", "create", "gamma", "--display-name", "G", "--storage-max-bytes", "4096", "--subscription-key", "sk-g-12345678"],
                 ["tenant", "create", "delta", "--display-name", "G", "--storage-max-bytes", "4096", "--subscription-key", "sk-g-12345678"]),
                (["client", "add", "--tenant", "acme", "--client-id", "l1", "--redirect-uri", "https://l.example/cb", "--require-par"],
                 ["client", "add", "--tenant", "acme", "--client-id", "r1", "--redirect-uri", "https://l.example/cb", "--require-par"]),
                (["client", "update", "--tenant", "acme", "--client-id", "l1", "--scope", "openid", "--access-token-lifetime", "120"],
                 ["client", "update", "--tenant", "acme", "--client-id", "r1", "--scope", "openid", "--access-token-lifetime", "120"]),
                (["client", "remove", "--tenant", "acme", "--client-id", "l1"], ["client", "remove", "--tenant", "acme", "--client-id", "r1"]),
                (["keys", "rotate", "--tenant", "beta", "--alg", "RS256", "--sign-after", "0"],
                 ["keys", "rotate", "--tenant", "beta", "--alg", "RS256", "--sign-after", "0"]),
                (["keys", "rotate", "--tenant", "beta", "--sign-after", "1h"], ["keys", "rotate", "--tenant", "beta", "--sign-after", "1h"]),
            ]
            let userWrites: [[String]] = [
                ["user", "add", "--tenant", "acme", "--username", "%", "--password-stdin", "--name", "N", "--email", "n@x.example", "--phone", "+819012345678"],
                ["user", "update", "--tenant", "acme", "--username", "%", "--email", "", "--picture", "https://x.example/p.png"],
                ["user", "passwd", "--tenant", "acme", "--username", "%", "--password-stdin"],
                ["user", "disable", "--tenant", "acme", "--username", "%"],
                ["user", "disable", "--tenant", "acme", "--username", "%", "--enable"],
                ["user", "delete", "--tenant", "acme", "--username", "%", "--yes"],
            ]
            for command in userWrites {
                writes.append((command.map { $0 == "%" ? "lu" : $0 }, command.map { $0 == "%" ? "ru" : $0 }))
            }
            let apns = ["push", "apns", "set", "--tenant", "%", "--key-id", "ABC123DEFG", "--team-id", "TEAM123456",
                "--topic", "com.beta.app", "--key-stdin"]
            for command in [apns, ["push", "apns", "remove", "--tenant", "%"]] {
                writes.append((command.map { $0 == "%" ? "beta" : $0 }, command.map { $0 == "%" ? "gamma" : $0 }))
            }
            let domainWrites: [[String]] = [
                ["domain", "add", "--tenant", "acme", "--host", "%.acme.example", "--app-id", "ABCDE12345.com.acme.app"],
                ["domain", "add", "--tenant", "acme", "--host", "%.acme.example", "--app-id", "ABCDE12345.com.acme.clip"],
                ["domain", "remove", "--tenant", "acme", "--host", "%.acme.example"],
            ]
            for command in domainWrites {
                writes.append((command.map { $0.replacingOccurrences(of: "%", with: "l") }, command.map { $0.replacingOccurrences(of: "%", with: "r") }))
            }
            let issuerWrites: [[String]] = [
                ["issuer", "trust", "--tenant", "acme", "--issuer", "https://%.partner.example", "--audience", "a",
                 "--introspection-client-id", "gw", "--introspection-cache", "60"],
                ["issuer", "trust", "--tenant", "acme", "--issuer", "https://%.partner.example", "--audience", "b"],
                ["issuer", "untrust", "--tenant", "acme", "--issuer", "https://%.partner.example"],
            ]
            for command in issuerWrites {
                writes.append((command.map { $0.replacingOccurrences(of: "%", with: "l") }, command.map { $0.replacingOccurrences(of: "%", with: "r") }))
            }
            let idpWrites: [[String]] = [
                ["idp", "add", "--tenant", "acme", "--alias", "%", "--issuer", "https://%.idp.example", "--client-id", "gw",
                 "--name", "Partner", "--scope", "openid email", "--link-by-verified-email"],
                ["idp", "remove", "--tenant", "acme", "--alias", "%"],
            ]
            for command in idpWrites {
                writes.append((command.map { $0.replacingOccurrences(of: "%", with: "l") }, command.map { $0.replacingOccurrences(of: "%", with: "r") }))
            }
            let l10nWrites: [[String]] = [
                ["l10n", "set", "--tenant", "%", "--locale", "ja", "a.key=あ", "b.key=い"],
                ["l10n", "unset", "--tenant", "%", "--locale", "ja", "a.key", "c.key"],
                ["l10n", "default", "--tenant", "%", "--locale", "ja"],
                ["l10n", "default", "--tenant", "%", "--clear"],
            ]
            for command in l10nWrites {
                writes.append((command.map { $0 == "%" ? "beta" : $0 }, command.map { $0 == "%" ? "gamma" : $0 }))
            }
            let wipe = ["storage", "wipe", "--tenant", "acme", "--user", "%", "--miniapp", "hello", "--yes"]
            writes.append((wipe.map { $0 == "%" ? "s1" : $0 }, wipe.map { $0 == "%" ? "s2" : $0 }))
            let send = ["push", "send", "--tenant", "acme", "--user", "zoe", "--miniapp", "hello", "--title", "T", "--body", "B"]
            writes.append((send, send))
            // An import: the same file into beta on the database and into gamma through a job.
            let importFile = home + "/users.json"
            try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
            try #"[{"username": "imp1", "password": "a long password 1", "subject": "s-imp1"}, {"username": "imp2", "upstreamOnly": true, "subject": "s-imp2"}]"#
                .write(toFile: importFile, atomically: true, encoding: .utf8)
            let userImport = ["user", "import", importFile, "--tenant", "%"]
            writes.append((userImport.map { $0 == "%" ? "beta" : $0 }, userImport.map { $0 == "%" ? "gamma" : $0 }))
            let p8 = P256.Signing.PrivateKey().pemRepresentation
            for (localCommand, remoteCommand) in writes {
                let stdin = localCommand.contains("--password-stdin") ? "a long password 42\n" : localCommand.contains("--key-stdin") ? p8 : ""
                let onDatabase = await Self.ctl(local, localCommand + ["--json"], stdin: stdin)
                let overAPI = await Self.ctl(remote, remoteCommand + ["--json", "--server", server], stdin: stdin)
                #expect(onDatabase.code == 0 && overAPI.code == 0, "\(remoteCommand): \(onDatabase.error) \(overAPI.error)")
                #expect(try Self.stable(onDatabase.output) == Self.stable(overAPI.output), "\(remoteCommand)")
                #expect(!overAPI.output.contains("sk-g-12345678"))
            }
            // Each path retires, at once, the next ES256 key it made above.
            let made = try await admin.stores.auth.signingKeys(tenantID: "beta")
                .filter { $0.algorithm == .es256 }.sorted { $0.createdAt < $1.createdAt }.map(\.kid)
            #expect(made.count == 2)
            if made.count == 2 {
                let onDatabase = await Self.ctl(local, ["keys", "retire", "--tenant", "beta", "--kid", made[0], "--now", "--json"])
                let overAPI = await Self.ctl(
                    remote, ["keys", "retire", "--tenant", "beta", "--kid", made[1], "--now", "--json", "--server", server])
                #expect(onDatabase.code == 0 && overAPI.code == 0, "\(onDatabase.error) \(overAPI.error)")
                #expect(try Self.stable(onDatabase.output) == Self.stable(overAPI.output))
                #expect(overAPI.output.contains(made[1]) && onDatabase.output.contains(made[0]))
                let unknown = await Self.ctl(remote, ["keys", "retire", "--tenant", "beta", "--kid", "kNOPE", "--server", server])
                #expect(unknown.code == 2 && unknown.error.contains("signing_key_not_found"), "\(unknown.error)")
            }
            let keyRecords = try await admin.stores.audit.records(
                matching: AuditQuery(chain: "beta", resourceType: .signingKey, limit: 10)).items
            #expect(keyRecords.map(\.actor.name).sorted() == ["root", "root", "root", "tester", "tester", "tester"])

            let totp = await Self.ctl(remote, ["user", "update", "--tenant", "acme", "--username", "zoe", "--totp", "--server", server])
            #expect(totp.code == 2 && totp.error.contains("need --local"), "\(totp.error)")
            let userRecords = try await admin.stores.audit.records(
                matching: AuditQuery(chain: "acme", resourceType: .user, limit: 20)).items
            #expect(
                userRecords.map { "\($0.actor.name):\($0.verb.rawValue):\($0.resource.id ?? "")" }.sorted()
                    == ["act", "act", "create", "delete", "update", "update"].flatMap { ["root:\($0):ru", "tester:\($0):lu"] }.sorted())

            // Over the API the writes are the operator's, on the database the OS user's.
            let records = try await admin.stores.audit.records(
                matching: AuditQuery(chain: "delta", resourceType: .tenant, verb: .create, limit: 1)).items
            #expect(records.first?.actor.name == "root" && records.first?.outcome.status == 201)
            let localCreate = try await admin.stores.audit.records(
                matching: AuditQuery(chain: "gamma", resourceType: .tenant, verb: .create, limit: 1)).items
            #expect(localCreate.first?.actor.subject == "local:tester")
            let clientRecords = try await admin.stores.audit.records(
                matching: AuditQuery(chain: "acme", resourceType: .client, limit: 10)).items
            #expect(Set(clientRecords.map { "\($0.actor.name):\($0.verb.rawValue):\($0.resource.id ?? "")" }) == [
                "tester:create:l1", "tester:update:l1", "tester:delete:l1", "root:create:r1", "root:update:r1", "root:delete:r1",
            ], "\(clientRecords.map(\.actor.name))")
        }
    }

    /// A printed document without what every write moves (at any depth).
    static func stable(_ output: String) throws -> JSONValue {
        let volatile: Set<String> = [
            "id", "configVersion", "createdAt", "updatedAt", "clientID", "revision", "removed", "kid", "signFrom", "nextAt",
            "retired", "unpublishAt", "username", "subject", "keyFingerprint", "tenant", "host", "issuer", "untrusted", "alias", "user",
        ]
        func strip(_ value: JSONValue) -> JSONValue {
            switch value {
            case .object(let members):
                .object(members.filter { !volatile.contains($0.key) }.mapValues(strip))
            case .array(let items): .array(items.map(strip))
            default: value
            }
        }
        return strip(try JSONDecoder().decode(JSONValue.self, from: Data(output.utf8)))
    }

    /// Standard error as it is written, so a test can act on the sign-in address.
    final class WatchingOutput: CLIOutput {
        let captured = CapturedOutput()
        let lines: AsyncStream<String>
        private let continuation: AsyncStream<String>.Continuation

        init() {
            (lines, continuation) = AsyncStream<String>.makeStream()
        }

        func writeOutput(_ text: String) { captured.writeOutput(text) }
        func writeError(_ text: String) {
            captured.writeError(text)
            continuation.yield(text)
        }
        var errorIsTerminal: Bool { false }
    }

    @Test(arguments: DatabaseBackend.available)
    func aPersonLogsInThroughTheBrowserAndStaysSignedIn(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            try await Self.seed(admin)
            _ = try await AdminOperatorSignInTests.person(admin)
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("gatewayctl-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: home) }
            let environment = admin.databaseEnvironment.merging(["USER": "tester", "GATEWAYCTL_HOME": home]) { $1 }
            let server = "http://127.0.0.1:\(admin.port)"
            let output = WatchingOutput()
            let code = try await withThrowingTaskGroup(of: Int32?.self) { group in
                group.addTask {
                    await Gatewayctl.run(
                        arguments: ["login", "--server", server], environment: environment, standardInput: { Data() },
                        output: output)
                }
                // The browser: opens the address gatewayctl printed, signs in, follows the redirect.
                group.addTask {
                    for await text in output.lines {
                        guard let start = text.range(of: "\(server)/admin/oauth2/authorize?") else { continue }
                        let query = String(text[start.upperBound...]).trimmingCharacters(in: .whitespacesAndNewlines)
                        var browser = AdminOperatorSignInTests.Browser(admin: admin, givenQuery: query)
                        let page = try await browser.open()
                        let signedIn = try await browser.post(
                            csrf: page.csrf, username: "alice", password: "correct horse battery")
                        let location = try #require(signedIn.location, "\(signedIn.html)")
                        #expect(location.hasPrefix("http://127.0.0.1:") && location.contains("/callback?code="))
                        let back = try await TestHTTP.noRedirects.execute(
                            HTTPClientRequest(url: location), timeout: .seconds(30))
                        #expect(back.status == .ok)
                        return nil
                    }
                    return nil
                }
                var code: Int32?
                for try await result in group where result != nil { code = result }
                return code
            }
            #expect(code == 0, "\(output.captured.error)")
            #expect(output.captured.output.contains("signed in to \(server) as alice"), "\(output.captured.output)")
            let file = home + "/session.json"
            let saved = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? [String: Any]
            let refresh = try #require(saved?["refreshToken"] as? String)
            #expect((try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int) == 0o600)

            // An expired access token is renewed with the refresh token, and the session saved.
            var expired = try #require(saved)
            expired["expiresAt"] = "2020-01-01T00:00:00Z"
            try JSONSerialization.data(withJSONObject: expired).write(to: URL(fileURLWithPath: file))
            let listed = await Self.ctl(environment, ["tenant", "list", "--json"])
            #expect(listed.code == 0 && listed.output.contains("acme") && !listed.output.contains("\"id\" : \"beta\""), "\(listed.output)")
            let renewed = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? [String: Any]
            #expect(renewed?["refreshToken"] as? String != refresh && renewed?["refreshToken"] != nil)
        }
    }

    @Test(arguments: DatabaseBackend.available)
    func aPersonLogsInFromAShellWithoutABrowser(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            _ = try await AdminOperatorSignInTests.person(admin)
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("gatewayctl-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: home) }
            let environment = admin.databaseEnvironment.merging(["USER": "tester", "GATEWAYCTL_HOME": home]) { $1 }
            let output = WatchingOutput()
            let code = try await withThrowingTaskGroup(of: Int32?.self) { group in
                group.addTask {
                    await Gatewayctl.run(
                        arguments: ["login", "--server", "http://127.0.0.1:\(admin.port)", "--device"],
                        environment: environment, standardInput: { Data() }, output: output)
                }
                // Someone on another device: reads the code gatewayctl printed, approves it.
                group.addTask {
                    for await text in output.lines {
                        guard let range = text.range(of: "enter the code ") else { continue }
                        let userCode = String(text[range.upperBound...].prefix(9))
                        let approved = try await AdminOperatorSignInTests.approve(admin, userCode: userCode)
                        #expect(approved.status == 200, "\(approved.html)")
                        return nil
                    }
                    return nil
                }
                var code: Int32?
                for try await result in group where result != nil { code = result }
                return code
            }
            #expect(code == 0 && output.captured.output.contains("as alice"), "\(output.captured.error)")
            let saved = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: home + "/session.json")))
            #expect((saved as? [String: Any])?["refreshToken"] as? String != nil)
        }
    }

    @Test(arguments: DatabaseBackend.available)
    func aDisabledOperatorIsOutAtOnce(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            let environment = admin.databaseEnvironment.merging(["USER": "tester"]) { $1 }
            let token = try #require(admin.tokens["acme-viewer"])
            #expect(try await admin.call(.GET, "/admin/v1/me", token: token).status == 200)
            let disabled = await Self.ctl(environment, ["operator", "disable", "acme-viewer", "--json"])
            #expect(disabled.code == 0 && disabled.output.contains("\"changed\" : \"true\""), "\(disabled.error)")
            // Its token ends now, on the next call; the database keeps none.
            #expect(try await admin.call(.GET, "/admin/v1/me", token: token).status == 401)
            let again = await Self.ctl(environment, ["operator", "disable", "acme-viewer"])
            #expect(again.code == 0 && again.output.contains("already"))
            let listed = await Self.ctl(environment, ["operator", "list"])
            #expect(listed.output.split(separator: "\n").contains { $0.hasPrefix("acme-viewer") && $0.contains("disabled") })
            #expect(await Self.ctl(environment, ["operator", "enable", "acme-viewer"]).code == 0)
            // Two changes, two records, as the OS user on the database.
            let records = try await admin.stores.audit.records(
                matching: AuditQuery(chain: nil, resourceType: .operator, verb: .act, limit: 5)
            ).items
            #expect(records.count == 2 && records.allSatisfy { $0.actor.name == "tester" }, "\(records.map(\.change))")
            #expect(await Self.ctl(environment, ["operator", "disable", "nobody"]).code != 0)
        }
    }

    @Test(arguments: DatabaseBackend.available)
    func aServiceAccountSignsInWithAPrivateKey(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("gatewayctl-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: home) }
            let environment = admin.databaseEnvironment.merging(["USER": "tester", "GATEWAYCTL_HOME": home]) { $1 }
            let server = "http://127.0.0.1:\(admin.port)"
            let key = P256.Signing.PrivateKey()
            try key.pemRepresentation.write(toFile: home + "/key.pem", atomically: true, encoding: .utf8)
            let jwks = JSONValue.object(["keys": .array([.object(JWK.publicJWK(key.publicKey))])])
            try jwks.encoded().write(to: URL(fileURLWithPath: home + "/jwks.json"))

            let created = await Self.ctl(
                environment, ["operator", "create", "key-bot", "--service-account", "--jwks-file", home + "/jwks.json", "--json"])
            #expect(created.code == 0 && !created.output.contains("clientSecret"), "\(created.error)")
            #expect(await Self.ctl(environment, ["operator", "bind", "key-bot", "--tenant", "acme", "--role", "viewer"]).code == 0)
            let login = await Self.ctl(
                environment, ["login", "--server", server, "--client-id", "key-bot", "--private-key-file", home + "/key.pem"])
            #expect(login.code == 0 && login.output.contains("as key-bot"), "\(login.error)")
            let listed = await Self.ctl(environment, ["tenant", "list", "--json"])
            #expect(listed.code == 0 && listed.output.contains("\"id\" : \"acme\""), "\(listed.error)")

            // On the wire: an assertion is good once; another key, or a secret, is invalid_client.
            func assertion(_ signer: P256.Signing.PrivateKey, audience: String = server + "/admin/oauth2/token") throws -> String {
                let now = Date().timeIntervalSince1970.rounded(.down)
                return try JWS.sign(
                    claims: [
                        "iss": "key-bot", "sub": "key-bot", "aud": .string(audience), "iat": .number(now),
                        "exp": .number(now + 60), "jti": .string(UUID().uuidString),
                    ], typ: "JWT", kid: nil, key: signer)
            }
            func token(_ jwt: String) async throws -> AdminAPITests.Reply {
                try await admin.call(
                    .POST, "/admin/oauth2/token", token: nil,
                    body: "grant_type=client_credentials&client_assertion_type=urn%3Aietf%3Aparams%3Aoauth%3Aclient-assertion-type%3Ajwt-bearer&client_assertion=\(jwt)",
                    contentType: "application/x-www-form-urlencoded")
            }
            let signed = try assertion(key)
            let first = try await token(signed)
            let access = try #require(first.json["access_token"] as? String, "\(first.json)")
            #expect(try await token(signed).json["error"] as? String == "invalid_client")
            #expect(try await token(try assertion(P256.Signing.PrivateKey())).status == 401)
            #expect(try await token(try assertion(key, audience: "https://elsewhere.example/token")).status == 401)
            #expect(try await admin.token("key-bot", "any-secret").status == 401)
            // Its refused write is recorded with how it authenticated.
            let refused = try await admin.call(.PATCH, "/admin/v1/tenants/acme", token: access, body: #"{"displayName": "X"}"#)
            #expect(refused.status == 403)
            let records = try await admin.stores.audit.records(
                matching: AuditQuery(chain: "acme", resourceType: .tenant, limit: 1)
            ).items
            #expect(records.first?.actor.name == "key-bot" && records.first?.actor.auth?.method == "private_key_jwt")
        }
    }

    @Test(arguments: DatabaseBackend.available)
    func loginThenActThroughTheAPI(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            try await Self.seed(admin)
            let created = try await OperatorService(operators: admin.stores.operators, hasher: PasswordHasher(logN: 10))
                .create(name: "cli-bot", credential: .generatedSecret, roles: [(.releaseManager, "acme")], actor: .local(user: "t"))
            let secret = try #require(created.secret)
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("gatewayctl-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: home) }
            let environment = admin.databaseEnvironment.merging(["USER": "tester", "GATEWAYCTL_HOME": home]) { $1 }
            let server = "http://127.0.0.1:\(admin.port)"

            let wrong = await Self.ctl(
                environment, ["login", "--server", server, "--client-id", "cli-bot", "--client-secret-stdin"], stdin: "nope\n")
            #expect(wrong.code == 2 && wrong.error.contains("invalid_client"), "\(wrong.error)")
            let login = await Self.ctl(
                environment, ["login", "--server", server, "--client-id", "cli-bot", "--client-secret-stdin"], stdin: secret + "\n")
            #expect(login.code == 0 && login.output.contains("signed in to \(server) as cli-bot"), "\(login.error)")
            let file = home + "/session.json"
            let attributes = try FileManager.default.attributesOfItem(atPath: file)
            #expect((attributes[.posixPermissions] as? Int) == 0o600)
            let saved = try String(contentsOfFile: file, encoding: .utf8)
            #expect(!saved.contains(secret) && saved.contains("sgo_"))

            // Signed in: the action goes through the API as cli-bot (audited), with a key.
            let paused = await Self.ctl(environment, ["release", "pause", "--tenant", "acme", "hello", "--reason", "look", "--json"])
            #expect(paused.code == 0, "\(paused.error)")
            #expect((try JSONSerialization.jsonObject(with: Data(paused.output.utf8)) as? [String: Any])?["revision"] as? Int == 2)
            let records = try await admin.stores.audit.records(
                matching: AuditQuery(chain: "acme", resourceType: .release, verb: .act, limit: 5)
            ).items
            #expect(records.first?.actor.name == "cli-bot" && records.first?.outcome.status == 200)
            #expect(try await admin.stores.releases.history(tenantID: "acme", miniAppID: "hello", limit: 1).first?.reason == "look")
            // Outside its roles the API refuses, and gatewayctl says so (exit 2).
            let beta = await Self.ctl(environment, ["release", "pause", "--tenant", "beta", "hello"])
            #expect(beta.code == 2 && beta.error.contains("tenant_not_found"), "\(beta.error)")

            #expect(await Self.ctl(environment, ["logout"]).output.contains("signed out"))
            #expect(!FileManager.default.fileExists(atPath: file))
            // Signed out: back on the database (as the OS user, no operator).
            let resumed = await Self.ctl(environment, ["release", "resume", "--tenant", "acme", "hello", "--json"])
            #expect(resumed.code == 0, "\(resumed.error)")
            #expect(try await admin.stores.releases.history(tenantID: "acme", miniAppID: "hello", limit: 1).first?.actor == "tester")

            // Changes on the database are in the same trail, as local:<user>, with before and after.
            let update = await Self.ctl(environment, ["tenant", "update", "acme", "--display-name", "Acme Local"])
            #expect(update.code == 0, "\(update.error)")
            let local = try await admin.stores.audit.records(
                matching: AuditQuery(chain: "acme", subject: "local:tester", limit: 10)
            ).items
            #expect(local.map(\.resource.type) == [.tenant, .release], "\(local.map(\.resource))")
            #expect(local.first?.change?.after == .object(["displayName": "Acme Local"]))
            #expect(local.first?.change?.before == .object(["displayName": "Acme Ltd"]))
            #expect(local.last?.verb == .act && local.last?.actor.auth?.method == "database")
            #expect(try await AuditVerifier.verify(admin.stores.audit, chain: "acme").broken == nil)
        }
    }
}

extension AdminCLITests {
    /// The admin wire's dates (AdminAPI, below GatewayCore) are gatewayctl's: the same text
    /// for the same instant, and read back to the same millisecond.
    @Test func wireDatesAreGatewayctlDates() throws {
        let dates = [0, 1, -1, 1_800_000_000.1234, 1_800_000_000.9996, -0.0004, 1_764_288_000.0005].map(Date.init(timeIntervalSince1970:))
            + (0..<200).map { _ in Date(timeIntervalSince1970: Double.random(in: -1e10...1e10)) }
        let wire = AdminWire.MillisecondDates()
        for date in dates {
            let text = try wire.encode(date)
            #expect(text == RFC3339.millisecondString(from: date), "\(date.timeIntervalSince1970)")
            // Read back, it is the same millisecond: it writes the same text again.
            #expect(try wire.encode(wire.decode(text)) == text)
        }
        for bad in ["yesterday", "2026-02-30T00:00:00Z", "2026-11-28T24:00:00Z", "2026-11-28T10:00:00", "2026-11-28T10:00:00.Z",
            "2026-11-28T10:00:00+24:00", "2026-11-28 10:00:00Z"]
        {
            #expect(throws: (any Error).self, "\(bad)") { try wire.decode(bad) }
        }
        // What RFC 3339 allows and Foundation's ISO 8601 style refuses (found by schemathesis).
        #expect(try wire.decode("0050-11-08T16:58:10-23:26") < wire.decode("0050-11-09T16:58:10Z"))
        #expect(try wire.decode("2026-11-28T10:00:00-23:26") == Date(timeIntervalSince1970: 1_795_860_000 + 84_360))
        #expect(try wire.decode("2026-11-28t10:00:00.25z") == Date(timeIntervalSince1970: 1_795_860_000.25))
        #expect(try wire.decode("2026-11-28T19:00:00+09:00") == Date(timeIntervalSince1970: 1_795_860_000))
    }
}
