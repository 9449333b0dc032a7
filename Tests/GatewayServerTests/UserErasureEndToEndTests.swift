import Foundation
import GatewayCore
import Testing

@Suite("Erasing a signed-in user with gatewayctl (real sockets)")
struct UserErasureEndToEndTests {
    @Test(
        "user delete: the running gateway refuses the user's access token once its revocation poll ran, the refresh token is dead, the account is gone; without --yes nothing happens"
    )
    func eraseASignedInUser() async throws {
        try await GatewayHarness.withGateway { harness, client, port in
            let kit = OAuthTestKit(harness: harness, client: client, port: port)
            try await kit.setUp()
            let tokens = try await kit.tokens()
            #expect(try await kit.me(authorization: "Bearer \(tokens.accessToken)").status == 200)

            let unconfirmed = await HostAppEndToEndTests.gatewayctl(
                harness, ["user", "delete", "--tenant", "demo", "--username", kit.username])
            #expect(unconfirmed.code == 2 && unconfirmed.error.contains("--yes"), "\(unconfirmed.error)")
            #expect(try await harness.operatorStores.auth.user(tenantID: "demo", username: kit.username) != nil)

            let erased = await HostAppEndToEndTests.gatewayctl(
                harness, ["user", "delete", "--tenant", "demo", "--username", kit.username, "--yes"])
            #expect(erased.code == 0, "\(erased.error)")
            let started = ContinuousClock.now
            let refused = await eventually(within: .seconds(10)) {
                (try? await kit.me(authorization: "Bearer \(tokens.accessToken)").status) == 401
            }
            #expect(refused, "the erased user's access token was still accepted")
            #expect(ContinuousClock.now - started < .seconds(5))
            #expect(try OAuthTestKit.errorCode(try await kit.refresh(tokens.issuedRefreshToken)) == "invalid_grant")
            #expect(try await harness.operatorStores.auth.user(tenantID: "demo", username: kit.username) == nil)
            #expect(
                await HostAppEndToEndTests.gatewayctl(
                    harness, ["user", "delete", "--tenant", "demo", "--username", kit.username, "--yes"]
                ).code == 2)
        }
    }
}
