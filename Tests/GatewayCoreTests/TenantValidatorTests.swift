import Testing
@testable import GatewayCore

@Suite struct TenantValidatorTests {
    @Test(arguments: ["A", "-x", "a", String(repeating: "a", count: 64), "acme_1", "ac me", "acmé", ""])
    func rejectsMalformedIDs(_ id: String) {
        #expect(!TenantID.isValid(id))
        #expect(throws: TenantValidationError.self) { try TenantID.validate(id) }
    }

    @Test(arguments: ["ab", "acme", "a-1", "0x", String(repeating: "a", count: 63)])
    func acceptsSlugs(_ id: String) {
        #expect(TenantID.isValid(id))
    }

    @Test func acceptsTheFullFixtureAndDefaults() throws {
        try TenantValidator.validate(Fixtures.fullTenant())
        try TenantValidator.validate(Tenant(id: "demo", displayName: "Demo Super App"))
    }

    static let badChanges: [(TenantField, @Sendable (inout Tenant) -> Void)] = [
        (.displayName, { $0.displayName = "" }),
        (.displayName, { $0.displayName = String(repeating: "x", count: 10_000) }),
        (.displayName, { $0.displayName = "tab\there" }),
        (.platformBaseURL, { $0.platform.baseURL = "ftp://x" }),
        (.platformBaseURL, { $0.platform.baseURL = "not a url" }),
        (.platformBaseURL, { $0.platform.baseURL = "/relative/path" }),
        (.provisioningBaseURL, { $0.provisioning.baseURL = "https://" }),
        (.provisioningBaseURL, { $0.provisioning.baseURL = "https://x.com/" + String(repeating: "a", count: 2048) }),
        (.platformProjectID, { $0.platform.projectID = String(repeating: "p", count: 257) }),
        (.provisioningSuperAppVersion, { $0.provisioning.superAppVersion = "1\n2" }),
        (.platformSubscriptionKey, { $0.platform.subscriptionKey = SecretValue(String(repeating: "k", count: 1025)) }),
        (.provisioningAPIKey, { $0.provisioning.apiKey = SecretValue("") }),
        (.themePrimaryColor, { $0.theme.primaryColor = "red" }),
        (.themeSecondaryColor, { $0.theme.secondaryColor = "#12345G" }),
        (.storageMaxSizeInBytes, { $0.storageMaxSizeInBytes = -1 }),
        (.storageMaxSizeInBytes, { $0.storageMaxSizeInBytes = 1_000_000_001 }),
        (.cacheMaxCount, { $0.cacheRules.maxCount = 100_001 }),
        (.cacheMaxDays, { $0.cacheRules.maxDays = -1 }),
        (.manifestTTL, { $0.cacheTTLs.manifestSeconds = 0 }),
        (.publicKeyTTL, { $0.cacheTTLs.publicKeySeconds = 604_801 }),
    ]

    @Test func rejectsEachBadFieldNamingIt() {
        for (field, change) in Self.badChanges {
            var tenant = Fixtures.fullTenant()
            change(&tenant)
            #expect(throws: TenantValidationError.self) { try TenantValidator.validate(tenant) }
            do {
                try TenantValidator.validate(tenant)
            } catch {
                #expect(error.field == field)
                #expect(!error.description.contains("\n"))
                #expect(error.description.count < 300)
            }
        }
    }

    @Test func messagesQuoteTheOffendingValue() {
        var tenant = Fixtures.fullTenant()
        tenant.platform.baseURL = "ftp://x"
        #expect(
            throws: TenantValidationError(
                field: .platformBaseURL, problem: "must be an absolute http(s) URL, got \"ftp://x\"")
        ) {
            try TenantValidator.validate(tenant)
        }
    }
}
