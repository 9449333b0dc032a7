import Foundation
import GatewayCore
import Testing

@Suite("Erasing a signed-in user with gatewayctl (real sockets)")
struct UserErasureEndToEndTests {
    @Test(
        "user delete: the running gateway refuses the user's access token once its revocation poll ran, the refresh token is dead, the account and its release-list entries are gone; without --yes nothing happens"
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

            // The user is on a release allow list; erasure takes them off it (issue 29).
            let account = try await harness.operatorStores.auth.user(tenantID: "demo", username: kit.username)
            let subject = try #require(account).subject
            let releases = ReleaseService(store: harness.operatorStores.releases)
            try await releases.set(.init(tenantID: "demo", miniAppID: "hello", actor: "test")) {
                $0.candidate = ReleaseCandidate(version: "v2", percent: .none, allowUsers: [subject, "someone-else"])
            }

            let erased = await HostAppEndToEndTests.gatewayctl(
                harness, ["user", "delete", "--tenant", "demo", "--username", kit.username, "--yes"])
            #expect(erased.code == 0, "\(erased.error)")
            let policy = try await harness.operatorStores.releases.policy(tenantID: "demo", miniAppID: "hello")
            #expect(policy?.candidate?.allowUsers == ["someone-else"])
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
