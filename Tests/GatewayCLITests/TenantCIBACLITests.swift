import Foundation
import GatewayCore
import Testing

/// `gatewayctl tenant create|update|show` and the tenant's CIBA settings.
@Suite struct TenantCIBACLITests {
    @Test("the CIBA flags set, show and bound the tenant's settings")
    func cibaFlags() async throws {
        let ctl = try CLIHarness()
        defer { ctl.remove() }
        #expect(await ctl.run(["tenant", "create", "plain", "--display-name", "Plain"]).code == 0)
        #expect(try await ctl.store().tenant(id: "plain")?.ciba == CIBASettings())

        #expect(await ctl.run(CLIHarness.fullCreate).code == 0)
        let created = try #require(try await ctl.store().tenant(id: "acme"))
        #expect(
            created.ciba
                == CIBASettings(
                    revealUnknownUsers: true, recentSignInSeconds: 120, allowPrivateNotificationEndpoints: true))
        let show = await ctl.run(["tenant", "show", "acme"])
        #expect(show.output.contains("ciba.recentSignInSeconds"), "\(show.output)")
        #expect(show.output.contains("ciba.allowPrivateNotificationEndpoints"), "\(show.output)")

        let updated = await ctl.run(["tenant", "update", "acme", "--ciba-reveal-unknown-users", "false"])
        #expect(updated.code == 0, "\(updated.error)")
        #expect(updated.output == "updated tenant acme (configVersion 2): changed ciba.revealUnknownUsers\n")

        for seconds in ["29", "3601"] {
            let refused = await ctl.run(["tenant", "update", "acme", "--ciba-recent-sign-in", seconds])
            #expect(refused.code != 0)
            #expect(refused.error.contains("--ciba-recent-sign-in must be between 30 and 3600"), "\(refused.error)")
        }
        let json = try #require(try await ctl.run(["tenant", "show", "acme", "--json"]).json() as? [String: Any])
        let ciba = try #require(json["ciba"] as? [String: Any])
        #expect(ciba["revealUnknownUsers"] as? Bool == false && ciba["recentSignInSeconds"] as? Int == 120)
    }
}
