import Foundation
import Testing

@testable import GatewayCore

/// Issue 64: a tenant's relying party (`passkeys.rpId`, `passkeys.origins`): the defaults come
/// from the public URL, and what a browser or an app could never present is refused.
@Suite("Passkey settings")
struct PasskeySettingsTests {
    static let android = PasskeySettings.androidOriginPrefix + String(repeating: "q", count: 43)

    @Test("by default the RP ID is the public URL's host and only its origin (and the RP ID's) is allowed")
    func defaults() {
        let party = PasskeySettings().relyingParty(issuer: "https://Login.Example.com:8443/t/acme")
        #expect(party.id == "login.example.com")
        #expect(party.origins == ["https://login.example.com:8443", "https://login.example.com"])
        let own = PasskeySettings(rpId: "acme.example", origins: [Self.android]).relyingParty(
            issuer: "http://127.0.0.1:8080/t/acme")
        #expect(own.id == "acme.example")
        #expect(own.origins == ["http://127.0.0.1:8080", "https://acme.example", Self.android])
    }

    @Test(
        "an RP ID must be a lowercase domain name",
        arguments: ["https://acme.example", "Acme.example", "acme.example:443", "acme.example/x", "127.0.0.1", "", ".acme",
            "-acme.example", "ac me.example", String(repeating: "a", count: 64) + ".example"])
    func refusedRPIDs(rpId: String) {
        #expect(PasskeySettings(rpId: rpId).problems.map(\.field) == [.passkeysRPId])
    }

    @Test("accepted RP IDs", arguments: ["localhost", "acme.example", "login.acme-group.co.jp", "x1.example"])
    func acceptedRPIDs(rpId: String) {
        #expect(PasskeySettings(rpId: rpId).problems.isEmpty)
    }

    @Test(
        "an origin is https://host[:port] or an Android app's key hash",
        arguments: ["http://acme.example", "http://localhost.acme.example", "https://acme.example/", "https://acme.example:0", "https://acme.example:08",
            "https://127.0.0.1", "android:apk-key-hash:short", "android:apk-key-hash:" + String(repeating: "+", count: 43),
            "ios:bundle-id:com.acme"])
    func refusedOrigins(origin: String) {
        #expect(PasskeySettings(origins: [origin]).problems.map(\.field) == [.passkeysOrigins])
    }

    @Test("origins are bounded and named once")
    func boundedOrigins() {
        let good = ["https://shop.acme.example", "https://acme.example:8443", Self.android, "http://localhost:8080"]
        #expect(PasskeySettings(origins: good).problems.isEmpty)
        #expect(PasskeySettings(origins: good + [good[0]]).problems.map(\.problem) == ["names https://shop.acme.example twice"])
        let many = (0...PasskeySettings.maximumOrigins).map { "https://a\($0).example" }
        #expect(PasskeySettings(origins: many).problems.map(\.problem) == ["names at most 20 origins"])
    }

    @Test("the tenant patch sets, clears and validates them")
    func patched() throws {
        var tenant = Tenant(id: "acme", displayName: "Acme")
        try TenantPatch(passkeys: .init(rpId: "Acme.Example", origins: [Self.android])).apply(to: &tenant, now: Date())
        #expect(tenant.passkeys == PasskeySettings(rpId: "acme.example", origins: [Self.android]))
        try TenantPatch(passkeys: .init(rpId: "")).apply(to: &tenant, now: Date())
        #expect(tenant.passkeys == PasskeySettings(origins: [Self.android]))
        #expect(throws: TenantValidationError.self) {
            try TenantPatch(passkeys: .init(origins: ["http://acme.example"])).apply(to: &tenant, now: Date())
        }
        #expect(tenant.passkeys.origins == [Self.android], "a refused patch changes nothing")
    }
}
