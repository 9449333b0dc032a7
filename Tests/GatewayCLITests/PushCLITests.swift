import Foundation
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
}
