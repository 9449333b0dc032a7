import Foundation
import GatewayAPI
import Testing

@testable import GatewayCore
@testable import GatewayServer

/// The account's passkeys in My account over HTTP (issue 64): listed, renamed and removed by the
/// user, each change audited; another account's passkey is not found; the last way in stays.
@Suite("My account: passkeys")
struct MyAccountPasskeyTests {
    static func passkey(_ byte: UInt8, subject: String, tenant: String) -> StoredPasskey {
        StoredPasskey(
            tenantID: tenant, subject: subject, credentialID: [byte, byte, 1], publicKey: [1], algorithm: -7, signCount: 0,
            backupEligible: true, backedUp: byte.isMultiple(of: 2), aaguid: [UInt8](repeating: 0, count: 16),
            transports: ["internal"], name: "Phone \(byte)", createdAt: Date(timeIntervalSince1970: 1_800_000_000 + Double(byte)))
    }

    @Test("listed, renamed, removed, each audited; another's not found; the last way in refused")
    func managePasskeys() async throws {
        try await GatewayHarness.withGateway { harness, client, port in
            var kit = OAuthTestKit(harness: harness, client: client, port: port)
            try await kit.useTenant(
                journeys: JourneySettings(identifiers: [.username], factors: [.password, .passkey]),
                passkeys: PasskeySettings())
            try await kit.setUp()
            let user = try #require(try await kit.store.user(tenantID: kit.tenant, username: kit.username))
            for byte: UInt8 in [1, 2] {
                try await kit.store.addPasskey(Self.passkey(byte, subject: user.subject, tenant: kit.tenant), trail: nil)
            }
            try await kit.store.addPasskey(Self.passkey(9, subject: "someone-else", tenant: kit.tenant), trail: nil)
            let api = kit.authorizedClient("Bearer \(try await kit.tokens().accessToken)")

            let shown = try await api.getAccount(path: .init(tenant: kit.tenant)).ok.body.json
            #expect(shown.passkeys.map(\.name) == ["Phone 1", "Phone 2"])
            #expect(shown.passkeys.map(\.backedUp) == [false, true])
            let first = Base64URL.encode([1, 1, 1])
            #expect(shown.passkeys.first?.id == first)

            let renamed = try await api.renameAccountPasskey(
                path: .init(tenant: kit.tenant, passkeyId: first), body: .json(.init(name: "  Hana's phone "))
            ).ok.body.json
            #expect(renamed.passkeys.first?.name == "Hana's phone")
            let blank = try await api.renameAccountPasskey(
                path: .init(tenant: kit.tenant, passkeyId: first), body: .json(.init(name: "   ")))
            #expect(try blank.unprocessableContent.body.applicationProblemJson.code == "invalid_account_change")
            let others = Base64URL.encode([9, 9, 1])
            let notMine = try await api.renameAccountPasskey(
                path: .init(tenant: kit.tenant, passkeyId: others), body: .json(.init(name: "mine now")))
            #expect(try notMine.notFound.body.applicationProblemJson.code == "passkey_not_found")
            let notMineEither = try await api.removeAccountPasskey(path: .init(tenant: kit.tenant, passkeyId: others))
            #expect(try notMineEither.notFound.body.applicationProblemJson.code == "passkey_not_found")
            #expect(try await kit.store.passkeys(tenantID: kit.tenant, subject: "someone-else").count == 1)

            let removed = try await api.removeAccountPasskey(path: .init(tenant: kit.tenant, passkeyId: first)).ok.body.json
            #expect(removed.passkeys.map(\.name) == ["Phone 2"])

            // Without a password, the last passkey is the last way in.
            var passwordless = user
            passwordless.passwordHash = IdentityLinker.noPassword
            try await kit.store.updateUser(passwordless)
            let last = try await api.removeAccountPasskey(
                path: .init(tenant: kit.tenant, passkeyId: Base64URL.encode([2, 2, 1])))
            #expect(try last.conflict.body.applicationProblemJson.code == "last_factor")
            #expect(try await kit.store.passkeys(tenantID: kit.tenant, subject: user.subject).count == 1)

            let records = try await harness.operatorStores.audit.records(
                matching: AuditQuery(chain: kit.tenant, resourceType: .user)
            ).items
            #expect(Set(records.compactMap(\.note?.action)).isSuperset(of: ["passkey.rename", "passkey.remove"]))
            #expect(records.filter { $0.note?.action == "passkey.remove" }.count == 1)
        }
    }
}
