import Foundation
import GatewayCore
import Testing

/// `gatewayctl tenant update --journeys-file F` (issue 63 §1): the tenant's journey settings
/// from a JSON file, shown by `tenant show`, bounded like every other field.
@Suite struct TenantJourneysCLITests {
    @Test("a journeys file sets, shows and bounds the tenant's journey settings")
    func journeysFile() async throws {
        let ctl = try CLIHarness()
        defer { ctl.remove() }
        #expect(await ctl.run(["tenant", "create", "acme", "--display-name", "Acme"]).code == 0)
        #expect(try await ctl.store().tenant(id: "acme")?.journeys == JourneySettings())
        let file = ctl.folder + "/journeys.json"
        func write(_ json: String) throws { try Data(json.utf8).write(to: URL(fileURLWithPath: file)) }

        try write(#"{"signUp": true, "identifiers": ["email", "phone"], "verify": ["email"], "factors": ["password", "sms-code"]}"#)
        let updated = await ctl.run(["tenant", "update", "acme", "--journeys-file", file])
        #expect(updated.code == 0, "\(updated.error)")
        #expect(updated.output.contains("journeys.signUp") && updated.output.contains("journeys.identifiers"), "\(updated.output)")
        let stored = try #require(try await ctl.store().tenant(id: "acme"))
        #expect(
            stored.journeys
                == JourneySettings(signUp: true, identifiers: [.email, .phone], verify: [.email], factors: [.password, .smsCode]))
        let show = await ctl.run(["tenant", "show", "acme"])
        #expect(show.output.contains("journeys.factors") && show.output.contains("password,sms-code"), "\(show.output)")

        // Refused, nothing written: settings that do not fit, a misspelt member, a bad value, no file.
        for (json, words) in [
            (#"{"recovery": ["phone"], "identifiers": ["email"]}"#, "--journeys-file: journeys.recovery names phone"),
            (#"{"signup": true}"#, "--journeys-file: signup is not a setting"),
            (#"{"identifiers": ["fax"]}"#, "--journeys-file: identifiers are username, email, phone"),
            ("[1]", "is not a JSON object"),
        ] {
            try write(json)
            let refused = await ctl.run(["tenant", "update", "acme", "--journeys-file", file])
            #expect(refused.code == 2 && refused.error.contains(words), "\(json): \(refused.error)")
            #expect(refused.error.split(separator: "\n").count == 1)
        }
        let missing = await ctl.run(["tenant", "update", "acme", "--journeys-file", ctl.folder + "/none.json"])
        #expect(missing.code == 2 && missing.error.contains("cannot read"), "\(missing.error)")
        #expect(try await ctl.store().tenant(id: "acme")?.journeys == stored.journeys)
    }

    @Test("the passkeys flags set, show, clear and bound the tenant's relying party")
    func passkeysFlags() async throws {
        let ctl = try CLIHarness()
        defer { ctl.remove() }
        #expect(await ctl.run(["tenant", "create", "acme", "--display-name", "Acme"]).code == 0)
        let android = "android:apk-key-hash:" + String(repeating: "k", count: 43)
        let updated = await ctl.run([
            "tenant", "update", "acme", "--passkeys-rp-id", "acme.example",
            "--passkeys-origins", "https://shop.acme.example, \(android)",
        ])
        #expect(updated.code == 0, "\(updated.error)")
        #expect(
            try await ctl.store().tenant(id: "acme")?.passkeys
                == PasskeySettings(rpId: "acme.example", origins: ["https://shop.acme.example", android]))
        let show = await ctl.run(["tenant", "show", "acme"])
        #expect(show.output.contains("passkeys.rpId") && show.output.contains("acme.example"), "\(show.output)")
        let refused = await ctl.run(["tenant", "update", "acme", "--passkeys-origins", "http://shop.acme.example"])
        #expect(refused.code == 2 && refused.error.contains("--passkeys-origins names http://shop.acme.example"), "\(refused.error)")
        let cleared = await ctl.run(["tenant", "update", "acme", "--passkeys-rp-id", "", "--passkeys-origins", ""])
        #expect(cleared.code == 0, "\(cleared.error)")
        #expect(try await ctl.store().tenant(id: "acme")?.passkeys == PasskeySettings())
    }
}
