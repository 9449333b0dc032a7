import Foundation
import Testing

@testable import GatewayCore
@testable import GatewayServer

/// Passkeys through the journey endpoints (issue 64) over real sockets: a native-style client
/// written from docs/passkeys.md, its authenticator built from the `fido2` package, signs up
/// without a password, signs in with no username typed, meets the refusals, and approves a TV's
/// sign-in request that asks for a passkey (docs/ciba.md).
@Suite("Journey endpoints: passkeys", .serialized)
struct JourneyPasskeyEndpointTests {
    @Test(
        "a native client with a fido2 software authenticator: passwordless sign-up as iOS, sign-in as Android, a replay, another origin and no user verification refused, a CIBA approval stepped up",
        .enabled(
            if: PythonScript.canImport("requests") && PythonScript.canImport("fido2"),
            "python3 with requests and fido2 is not installed (make test installs them)"))
    func nativeClientWithFido2() async throws {
        try await GatewayHarness.withGateway { harness, client, port in
            var kit = OAuthTestKit(harness: harness, client: client, port: port)
            kit.clientID = "passkey-" + UUID().uuidString.prefix(6).lowercased()
            let android = PasskeySettings.androidOriginPrefix + Base64URL.encode(Array(repeating: 7, count: 32))
            try await kit.useTenant(
                journeys: JourneySettings(signUp: true, identifiers: [.username], factors: [.passkey]),
                passkeys: PasskeySettings(rpId: "login.acme.example", origins: [android]))
            try await kit.setUp()
            let (secret, hash) = ClientSecret.generate()
            var tv = OAuthClient(tenantID: kit.tenant, clientID: "tv-passkey", confidential: true, redirectURIs: [])
            tv.grantTypes = [BackchannelRules.grantType]
            tv.backchannelMode = .poll
            try tv.validate()
            try await kit.store.addClient(tv, secretHash: hash)
            let (status, output) = try await PythonScript.run(
                "passkey_client.py",
                [kit.base, kit.tenant, kit.clientID, kit.redirectURI, "login.acme.example", android, tv.clientID, secret])
            #expect(status == 0, "\(output)")
            for step in [
                "ok passkey-sign-up", "ok passkey-sign-in", "ok replay-refused", "ok wrong-origin-refused",
                "ok no-user-verification-refused", "ok ciba-passkey-step-up", "ok ciba-passkey-replay-refused",
            ] {
                #expect(output.contains(step), "\(step) missing: \(output)")
            }
            // What the client made is kept: one passkey, its counter moved by the sign-in.
            let users = try await kit.store.users(tenantID: kit.tenant).filter { $0.username.hasPrefix("kai-") }
            let user = try #require(users.first)
            let passkeys = try await kit.store.passkeys(tenantID: kit.tenant, subject: user.subject)
            // The CIBA approval left it where the phone's counter was then: 4 (the sign-in, two
            // refused answers that moved the phone's counter but not the stored one, the approval).
            #expect(passkeys.count == 1 && passkeys.first?.signCount == 4 && passkeys.first?.lastUsedAt != nil)
        }
    }

    @Test(
        "the same client steps up: a password sign-up makes the offered passkey; acr_values for the passkey class ask for it after the password",
        .enabled(
            if: PythonScript.canImport("requests") && PythonScript.canImport("fido2"),
            "python3 with requests and fido2 is not installed (make test installs them)"))
    func nativeClientStepsUp() async throws {
        try await GatewayHarness.withGateway { harness, client, port in
            var kit = OAuthTestKit(harness: harness, client: client, port: port)
            kit.clientID = "passkey-" + UUID().uuidString.prefix(6).lowercased()
            try await kit.useTenant(
                journeys: JourneySettings(signUp: true, identifiers: [.username], factors: [.password, .passkey]),
                passkeys: PasskeySettings(rpId: "login.acme.example"))
            try await kit.setUp()
            let (status, output) = try await PythonScript.run(
                "passkey_client.py",
                ["--step-up", kit.base, kit.tenant, kit.clientID, kit.redirectURI, "login.acme.example"])
            #expect(status == 0, "\(output)")
            for step in ["ok password-sign-up-with-passkey", "ok passkey-step-up"] {
                #expect(output.contains(step), "\(step) missing: \(output)")
            }
            let records = try await harness.bootstrap.stores.audit.records(
                matching: AuditQuery(chain: kit.tenant, resourceType: .user, limit: 50)
            ).items
            #expect(records.contains { $0.note?.action == "passkey.step-up" }, "\(records.map(\.note))")
        }
    }
}
