import Crypto
import Foundation
import _CryptoExtras
import GatewayCLI
import GatewayCore
import GatewaySQLite
import Testing

@Suite("gatewayctl push")
struct PushCLITests {
    @Test("push devices lists a user's devices newest first with the token masked; an unknown tenant is exit 2")
    func devices() async throws {
        let ctl = try CLIHarness()
        defer { ctl.remove() }
        #expect(await ctl.run(["tenant", "create", "acme", "--display-name", "Acme"]).code == 0)
        let service = DeviceService(store: try ctl.store().durableStores().devices)
        let token = "fcm-secret-token-" + UUID().uuidString
        _ = try await service.register(
            .init(provider: .fcm, token: token, platform: .android, locale: "ja"), tenantID: "acme", userID: "alice")
        let listed = await ctl.run(["push", "devices", "--tenant", "acme", "--user", "alice", "--json"])
        #expect(listed.code == 0, "\(listed.error)")
        let devices = try #require(try listed.json() as? [[String: Any]])
        #expect(devices.count == 1 && devices.first?["locale"] as? String == "ja")
        #expect(devices.first?["tokenEnding"] as? String == "…" + token.suffix(4))
        #expect(!listed.output.contains(token))
        let text = await ctl.run(["push", "devices", "--tenant", "acme", "--user", "alice"])
        #expect(text.code == 0 && text.output.contains("fcm") && !text.output.contains(token))
        #expect(await ctl.run(["push", "devices", "--tenant", "nope", "--user", "alice"]).code == 2)
    }

    @Test("push apns|fcm set, show (masked; --reveal prints the key), remove; bad keys and files are exit 2, nothing stored")
    func credentials() async throws {
        let ctl = try CLIHarness()
        defer { ctl.remove() }
        #expect(await ctl.run(["tenant", "create", "acme", "--display-name", "Acme"]).code == 0)
        let p8 = P256.Signing.PrivateKey().pemRepresentation
        let apnsSet = ["push", "apns", "set", "--tenant", "acme", "--key-id", "ABC123DEFG", "--team-id", "TEAM123456",
                       "--topic", "com.example.super", "--environment", "sandbox", "--key-stdin"]
        let set = await ctl.run(apnsSet, stdin: p8)
        #expect(set.code == 0 && !set.output.contains("PRIVATE KEY"), "\(set.error)")
        let shown = await ctl.run(["push", "apns", "show", "--tenant", "acme"])
        #expect(shown.code == 0 && shown.output.contains("team id: TEAM123456") && shown.output.contains("sandbox"))
        #expect(!shown.output.contains("PRIVATE KEY"))
        let revealed = await ctl.run(["push", "apns", "show", "--tenant", "acme", "--reveal", "--json"])
        #expect((try revealed.json() as? [String: Any])?["privateKey"] as? String == p8)
        // Sealed at rest: the database file does not hold the key.
        for path in [ctl.databasePath, ctl.databasePath + "-wal"] {
            let file = (try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data()
            #expect(file.range(of: Data(p8.utf8.dropFirst(40).prefix(32))) == nil, "\(path)")
        }

        // Refusals: no --key-stdin, an RSA key as .p8, a short team id, a file that is no service account.
        #expect(await ctl.run(Array(apnsSet.dropLast())).code == 2)
        let rsa = try _RSA.Signing.PrivateKey(keySize: .bits2048).pemRepresentation
        #expect(await ctl.run(apnsSet, stdin: rsa).code == 2)
        var shortTeam = apnsSet
        shortTeam[shortTeam.firstIndex(of: "TEAM123456")!] = "T1"
        #expect(await ctl.run(shortTeam, stdin: p8).code == 2)
        let fcmSet = ["push", "fcm", "set", "--tenant", "acme", "--service-account-stdin"]
        #expect(await ctl.run(fcmSet, stdin: #"{"type": "authorized_user"}"#).code == 2)
        #expect(await ctl.run(["push", "fcm", "show", "--tenant", "acme"]).code == 1)

        let account: [String: String] = [
            "type": "service_account", "project_id": "acme-push", "private_key_id": "k1", "private_key": rsa,
            "client_email": "push@acme-push.iam.gserviceaccount.com", "token_uri": "https://oauth2.googleapis.com/token",
        ]
        let json = String(decoding: try JSONSerialization.data(withJSONObject: account), as: UTF8.self)
        #expect(await ctl.run(fcmSet, stdin: json).code == 0)
        let fcm = await ctl.run(["push", "fcm", "show", "--tenant", "acme", "--json"])
        let fields = try #require(try fcm.json() as? [String: Any])
        #expect(fields["projectID"] as? String == "acme-push" && !(fcm.output.contains("PRIVATE KEY")))

        #expect(await ctl.run(["push", "apns", "remove", "--tenant", "acme"]).code == 0)
        #expect(await ctl.run(["push", "apns", "remove", "--tenant", "acme"]).code == 1)
        #expect(await ctl.run(["push", "fcm", "show", "--tenant", "acme"]).code == 0)
    }

    @Test("push send queues a test message for a consenting user's devices; --wait reports the counts")
    func send() async throws {
        let ctl = try CLIHarness()
        defer { ctl.remove() }
        #expect(await ctl.run(["tenant", "create", "acme", "--display-name", "Acme"]).code == 0)
        let stores = try ctl.store().durableStores()
        _ = try await DeviceService(store: stores.devices).register(
            .init(provider: .fcm, token: "tok-1", platform: .android), tenantID: "acme", userID: "alice")
        let owner = UserMiniAppKey(tenantID: "acme", userID: "alice", miniAppID: "shop")
        try await stores.consents.touch(owner)
        _ = try await stores.consents.setConsents([CustomPermission.notifications.rawValue: .allowed], for: owner)
        let sent = await ctl.run([
            "push", "send", "--tenant", "acme", "--user", "alice", "--miniapp", "shop", "--title", "Hi", "--body", "Test",
            "--wait", "1", "--json",
        ])
        #expect(sent.code == 0, "\(sent.error)")
        let report = try #require(try sent.json() as? [String: Any])
        #expect((report["id"] as? String)?.hasPrefix("msg_") == true && report["deliveries"] as? Int == 1)
        // No gateway runs here: the delivery is still pending when the wait is over.
        #expect((report["counts"] as? [String: Any])?["pending"] as? Int == 1)
        let empty = await ctl.run([
            "push", "send", "--tenant", "acme", "--user", "alice", "--miniapp", "shop", "--title", "", "--body", "b",
        ])
        #expect(empty.code == 2)
    }

    @Test("client add --jwks registers a private_key_jwt sender without a secret; a private key in the set is exit 2")
    func senderWithKeys() async throws {
        let ctl = try CLIHarness()
        defer { ctl.remove() }
        #expect(await ctl.run(["tenant", "create", "acme", "--display-name", "Acme"]).code == 0)
        let key = P256.Signing.PrivateKey()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("jwks-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try JSONEncoder().encode(JSONValue.object(["keys": .array([.object(JWK.publicJWK(key.publicKey))])]))
            .write(to: file)
        let add = [
            "client", "add", "--tenant", "acme", "--client-id", "shop-backend", "--confidential", "--grant-type",
            "client_credentials", "--miniapp", "shop", "--scope", "notifications:send", "--jwks", file.path, "--json",
        ]
        let added = await ctl.run(add)
        #expect(added.code == 0, "\(added.error)")
        let document = try #require(try added.json() as? [String: Any])
        #expect(document["clientSecret"] == nil && (document["client"] as? [String: Any])?["jwks"] != nil)
        var privateJWK = JWK.publicJWK(key.publicKey)
        privateJWK["d"] = .string(Base64URL.encode(key.rawRepresentation))
        try JSONEncoder().encode(JSONValue.object(["keys": .array([.object(privateJWK)])])).write(to: file)
        var second = add
        second[second.firstIndex(of: "shop-backend")!] = "other-backend"
        #expect(await ctl.run(second).code == 2)
    }
}
