import Foundation
@testable import GatewayCore
@testable import GatewaySQLite
import Testing

/// The courier settings at rest (issue 63 §4): secrets sealed in the tenant row under the
/// tenant and the field, never in its text, and a sealed secret moved to another tenant does
/// not open.
@Suite("Courier settings at rest")
struct CourierSettingsTests {
    @Test("the stored row holds the courier's secrets sealed, bound to the tenant")
    func sealedAtRest() throws {
        let tenant = Fixtures.fullTenant()
        let record = try TenantRecord(tenant, sealer: Fixtures.sealer)
        #expect(!record.courier.contains("SMTP-PASSWORD-SECRET-MARKER") && !record.courier.contains("SMS-TOKEN-SECRET-MARKER"))
        #expect(record.courier.contains("sealed"))
        let back = try record.tenant(sealer: Fixtures.sealer)
        #expect(back.courier == tenant.courier)

        // The same column under another tenant's id does not open.
        var moved = try TenantRecord(Fixtures.fullTenant(id: "other"), sealer: Fixtures.sealer)
        moved.courier = record.courier
        #expect(throws: (any Error).self) { try moved.tenant(sealer: Fixtures.sealer) }

        // A column with a secret in the clear is refused, not trusted.
        var unsealed = record
        unsealed.courier = #"{"smtp": {"url": "smtp://127.0.0.1:25", "from": "a@b.example", "username": "u", "password": "clear"}}"#
        #expect(throws: TenantStoreError.self) { try unsealed.tenant(sealer: Fixtures.sealer) }
    }

    @Test("SMS goes only to the allowed calling codes, the longest match first")
    func allowedCountries() {
        let sms = SMSSettings(
            provider: .webhook, url: "https://sms.example/send", authToken: SecretValue("0123456789abcdef"),
            from: "Acme", allowedCountries: ["1", "1242", "81"])
        #expect(sms.allowedCountry(of: "+12425550123") == "1242")
        #expect(sms.allowedCountry(of: "+15005550006") == "1")
        #expect(sms.allowedCountry(of: "+819012345678") == "81")
        #expect(sms.allowedCountry(of: "+447700900123") == nil && sms.allowedCountry(of: "819012345678") == nil)
        #expect(sms.problems.isEmpty)
    }
}
