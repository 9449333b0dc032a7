import Testing
@testable import GatewayCore

@Suite struct HostAppValidatorTests {
    static let badChanges: [(TenantField, String, @Sendable (inout Tenant) -> Void)] = [
        (.hostAppMinimumVersion, "version", { $0.hostApp.minimumVersion = "2.x" }),
        (.hostAppMinimumVersion, "version", { $0.hostApp.minimumVersion = "" }),
        (.hostAppLatestVersion, "version", { $0.hostApp.latestVersion = "1.2.3.4.5" }),
        (.hostAppLatestVersion, "version", { $0.hostApp.latestVersion = "1234567" }),
        (
            .hostAppMinimumVersion, "latest version",
            { $0.hostApp = HostAppVersionPolicy(minimumVersion: "2.10", latestVersion: "2.9") }
        ),
        (.hostAppUpdateURL, "https", { $0.hostApp.updateURL = "http://apps.example.com/acme" }),
        (.hostAppUpdateURL, "URL", { $0.hostApp.updateURL = "not a url" }),
        (.hostAppUpdateURL, "https", { $0.hostApp.updateURL = "itms-apps://apps.apple.com/app/id1" }),
        (.featureFlags, "names", { $0.featureFlags = ["Beta": true] }),
        (.featureFlags, "names", { $0.featureFlags = ["1beta": true] }),
        (.featureFlags, "names", { $0.featureFlags = ["": true] }),
        (.featureFlags, "names", { $0.featureFlags = ["has space": true] }),
        (.featureFlags, "names", { $0.featureFlags = [String(repeating: "a", count: 65): true] }),
        (
            .featureFlags, "at most 100",
            { t in t.featureFlags = Dictionary(uniqueKeysWithValues: (0..<101).map { ("f\($0)", true) }) }
        ),
    ]

    @Test func refusesEachBadHostAppFieldNamingIt() {
        for (field, phrase, change) in Self.badChanges {
            var tenant = Fixtures.fullTenant()
            change(&tenant)
            #expect(throws: TenantValidationError.self) { try TenantValidator.validate(tenant) }
            do {
                try TenantValidator.validate(tenant)
            } catch {
                #expect(error.field == field, "\(error)")
                #expect(error.problem.contains(phrase), "\(error)")
                #expect(!error.description.contains("\n"))
                #expect(error.description.count < 300)
            }
        }
    }

    @Test func minimumAboveLatestNamesBothValues() {
        var tenant = Fixtures.fullTenant()
        tenant.hostApp = HostAppVersionPolicy(minimumVersion: "3.0", latestVersion: "2.4")
        #expect(
            throws: TenantValidationError(
                field: .hostAppMinimumVersion, problem: "must not be above the latest version \"2.4\", got \"3.0\"")
        ) {
            try TenantValidator.validate(tenant)
        }
    }

    @Test func acceptsEdgeValues() throws {
        var tenant = Fixtures.fullTenant()
        tenant.hostApp = HostAppVersionPolicy(
            minimumVersion: "2.4.0", latestVersion: "2.4", updateURL: "HTTPS://apps.example.com")
        tenant.featureFlags = Dictionary(uniqueKeysWithValues: (0..<100).map { ("f\($0)", $0.isMultiple(of: 2)) })
        tenant.featureFlags["a" + String(repeating: "z", count: 63)] = nil
        try TenantValidator.validate(tenant)
        tenant.featureFlags = ["a": true, "a0_.-z": false]
        tenant.hostApp = HostAppVersionPolicy(latestVersion: "1")
        try TenantValidator.validate(tenant)
        tenant.hostApp = HostAppVersionPolicy(minimumVersion: "999999.999999.999999.999999")
        try TenantValidator.validate(tenant)
        #expect(TenantValidator.isFeatureFlagName("a" + String(repeating: "z", count: 63)))
        #expect(!TenantValidator.isFeatureFlagName("a" + String(repeating: "z", count: 64)))
    }
}
