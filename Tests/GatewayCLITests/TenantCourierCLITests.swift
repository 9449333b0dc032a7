import Foundation
import GatewayCore
import GatewaySQLite
import Testing

/// `gatewayctl tenant update --courier-file F` (issue 63 §4): the courier's relay and SMS
/// provider from a JSON file, secrets sealed and never shown, misspelt members refused.
@Suite struct TenantCourierCLITests {
    @Test("a courier file sets the relay and the SMS provider; show masks the secrets")
    func courierFile() async throws {
        let ctl = try CLIHarness()
        defer { ctl.remove() }
        #expect(await ctl.run(["tenant", "create", "acme", "--display-name", "Acme"]).code == 0)
        let file = ctl.folder + "/courier.json"
        func write(_ json: String) throws { try Data(json.utf8).write(to: URL(fileURLWithPath: file)) }

        try write("""
            {"smtp": {"url": "smtps://mail.acme.example:465", "from": "no-reply@acme.example", "username": "mailer",
                      "password": "smtp-secret-cli-0042"},
             "sms": {"provider": "webhook", "url": "https://sms.acme.example/send", "authToken": "hmac-key-cli-0123456789",
                     "from": "Acme", "allowedCountries": ["81"]}}
            """)
        let updated = await ctl.run(["tenant", "update", "acme", "--courier-file", file])
        #expect(updated.code == 0, "\(updated.error)")
        #expect(!updated.output.contains("smtp-secret-cli-0042") && !updated.output.contains("hmac-key-cli-0123456789"))
        let stored = try #require(try await ctl.store().tenant(id: "acme"))
        #expect(stored.courier.smtp?.password?.plaintext == "smtp-secret-cli-0042" && stored.courier.smtp?.startTLS == .required)
        #expect(stored.courier.sms?.authToken?.plaintext == "hmac-key-cli-0123456789")

        let show = await ctl.run(["tenant", "show", "acme"])
        #expect(show.output.contains("courier.smtp.url") && show.output.contains("courier.sms.allowedCountries"), "\(show.output)")
        #expect(!show.output.contains("smtp-secret-cli-0042") && !show.output.contains("hmac-key-cli-0123456789"))

        for (json, words) in [
            (#"{"smtp": {"host": "mail.acme.example"}}"#, "--courier-file: smtp.host is not a setting"),
            (#"{"mail": {}}"#, "--courier-file: mail is not a setting"),
            (#"{"sms": {"provider": "pigeon"}}"#, "--courier-file: smtp members are texts"),
            (#"{"smtp": {"url": "smtp://mail.acme.example", "startTLS": "off"}}"#, "--courier-file: courier.smtp.startTLS may be off only"),
        ] {
            try write(json)
            let refused = await ctl.run(["tenant", "update", "acme", "--courier-file", file])
            #expect(refused.code == 2 && refused.error.contains(words), "\(json): \(refused.error)")
        }
        #expect(try await ctl.store().tenant(id: "acme")?.courier == stored.courier)
    }

    @Test("courier messages lists the outbox masked, never the text")
    func courierMessages() async throws {
        let ctl = try CLIHarness()
        defer { ctl.remove() }
        #expect(await ctl.run(["tenant", "create", "acme", "--display-name", "Acme"]).code == 0)
        let now = Date()
        try await SQLiteCourierOutbox(database: try ctl.store()).enqueue(
            CourierMessage(
                tenantID: "acme", id: "cm-1", channel: .email, purpose: "verify-email", to: "ken@acme.example",
                subject: "Your code", text: "Your code is 918273", createdAt: now, expiresAt: now.addingTimeInterval(600)))
        let listed = await ctl.run(["courier", "messages", "--tenant", "acme"])
        #expect(listed.code == 0, "\(listed.error)")
        #expect(listed.output.contains("k…@acme.example") && listed.output.contains("pending"), "\(listed.output)")
        #expect(!listed.output.contains("918273") && !listed.output.contains("ken@"))
        let failed = await ctl.run(["courier", "messages", "--tenant", "acme", "--state", "failed"])
        #expect(failed.code == 0 && failed.output.contains("0 message(s)"), "\(failed.output)")
        let bad = await ctl.run(["courier", "messages", "--tenant", "acme", "--state", "lost"])
        #expect(bad.code != 0 && bad.error.contains("--state must be"), "\(bad.error)")
    }
}
