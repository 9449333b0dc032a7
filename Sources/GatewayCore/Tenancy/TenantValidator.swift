import Foundation

/// Checks a ``Tenant`` before any store writes it. Every rule is also callable per
/// field, so the CLI can check a flag before touching the database.
public enum TenantValidator {
    public static let displayNameMaxLength = 200
    public static let urlMaxLength = 2048
    public static let identifierMaxLength = 256
    public static let secretMaxLength = 1024
    public static let storageRange: ClosedRange<Int64> = 1...1_000_000_000
    public static let cacheMaxCountRange: ClosedRange<Int> = 0...100_000
    public static let cacheMaxDaysRange: ClosedRange<Int> = 0...3650
    public static let ttlRange: ClosedRange<Int> = 1...604_800

    /// Throws the first problem found, in field order.
    public static func validate(_ t: Tenant) throws(TenantValidationError) {
        if let first = problems(t, stopAtFirst: true).first { throw first }
    }

    /// Every problem found, in field order: what a form shows beside each of its fields.
    public static func problems(_ t: Tenant, stopAtFirst: Bool = false) -> [TenantValidationError] {
        var found: [TenantValidationError] = []
        // Each rule on its own, so one bad field does not hide the next.
        func check(_ rule: () throws -> Void) {
            guard !stopAtFirst || found.isEmpty else { return }
            do { try rule() } catch let problem as TenantValidationError { found.append(problem) } catch {}
        }
        check { try TenantID.validate(t.id) }
        check { try validateDisplayName(t.displayName) }
        check { try validateURL(t.platform.baseURL, field: .platformBaseURL) }
        check { try validateIdentifier(t.platform.projectID, field: .platformProjectID) }
        check { try validateSecret(t.platform.subscriptionKey?.plaintext, field: .platformSubscriptionKey) }
        check { try validateURL(t.provisioning.baseURL, field: .provisioningBaseURL) }
        check { try validateIdentifier(t.provisioning.superAppID, field: .provisioningSuperAppID) }
        check { try validateIdentifier(t.provisioning.superAppVersion, field: .provisioningSuperAppVersion) }
        check { try validateSecret(t.provisioning.apiKey?.plaintext, field: .provisioningAPIKey) }
        check { try validateRange(t.storageMaxSizeInBytes, storageRange, field: .storageMaxSizeInBytes) }
        check { try validateRange(t.cacheRules.maxCount, cacheMaxCountRange, field: .cacheMaxCount) }
        check { try validateRange(t.cacheRules.maxDays, cacheMaxDaysRange, field: .cacheMaxDays) }
        check { try validateColor(t.theme.primaryColor, field: .themePrimaryColor) }
        check { try validateColor(t.theme.secondaryColor, field: .themeSecondaryColor) }
        check { try validateHTTPSURL(t.theme.logoURL, field: .themeLogoURL) }
        check { try validateRange(t.cacheTTLs.manifestSeconds, ttlRange, field: .manifestTTL) }
        check { try validateRange(t.cacheTTLs.catalogSeconds, ttlRange, field: .catalogTTL) }
        check { try validateRange(t.cacheTTLs.localizationSeconds, ttlRange, field: .localizationTTL) }
        check { try validateRange(t.cacheTTLs.publicKeySeconds, ttlRange, field: .publicKeyTTL) }
        check { try validateHostApp(t.hostApp) }
        check { try validateFeatureFlags(t.featureFlags) }
        check { try validateRAS(t.ras) }
        check {
            try validateRange(
                t.ciba.recentSignInSeconds, CIBASettings.recentSignInRange, field: .cibaRecentSignInSeconds)
        }
        found += t.journeys.problems
        found += t.passkeys.problems
        found += t.courier.problems
        return found
    }

    /// At most 10 client keys, each a `sha256$` hash of 43 base64url characters, at most one current.
    public static func validateRAS(_ ras: RASSettings) throws(TenantValidationError) {
        guard ras.clientKeys.count <= 10 else {
            throw TenantValidationError(
                field: .rasClientKeys, problem: "must hold at most 10 keys (rotate with a shorter --ras-key-overlap)")
        }
        for key in ras.clientKeys {
            let digest = key.hash.dropFirst("sha256$".count)
            guard key.hash.hasPrefix("sha256$"), digest.utf8.count == 43,
                digest.utf8.allSatisfy({
                    ASCIIByte.isLetterOrDigit($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")
                })
            else {
                throw TenantValidationError(
                    field: .rasClientKeys,
                    problem: "must hold key hashes (sha256$ and 43 base64url characters), never keys")
            }
        }
        guard ras.clientKeys.filter({ $0.notAfter == nil }).count <= 1 else {
            throw TenantValidationError(
                field: .rasClientKeys, problem: "must have at most one current key (notAfter unset)")
        }
    }

    /// 1–200 characters, no control characters.
    public static func validateDisplayName(_ value: String) throws(TenantValidationError) {
        try validateText(value, field: .displayName, maxLength: displayNameMaxLength)
    }

    /// nil, or an absolute http/https URL with a host, at most 2048 characters, no whitespace.
    public static func validateURL(_ value: String?, field: TenantField) throws(TenantValidationError) {
        guard let value else { return }
        let problem = TenantValidationError(
            field: field, problem: "must be an absolute http(s) URL, got \(TenantValidationError.quote(value))")
        guard value.count <= urlMaxLength else {
            throw TenantValidationError(
                field: field, problem: "must be at most \(urlMaxLength) characters, got \(value.count)")
        }
        guard
            !value.unicodeScalars.contains(where: {
                $0.properties.isWhitespace || $0.properties.generalCategory == .control
            }),
            let components = URLComponents(string: value),
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = components.host, !host.isEmpty
        else { throw problem }
    }

    /// nil, or 1–256 printable characters (project id, super app id and version).
    public static func validateIdentifier(_ value: String?, field: TenantField) throws(TenantValidationError) {
        guard let value else { return }
        try validateText(value, field: field, maxLength: identifierMaxLength)
    }

    /// nil, or 1–1024 characters without control characters. Never echoes the value.
    public static func validateSecret(_ value: String?, field: TenantField) throws(TenantValidationError) {
        guard let value else { return }
        guard !value.isEmpty, value.count <= secretMaxLength else {
            throw TenantValidationError(
                field: field, problem: "must be 1-\(secretMaxLength) characters, got \(value.count)")
        }
        guard !containsControl(value) else {
            throw TenantValidationError(field: field, problem: "must not contain control characters")
        }
    }

    /// `#RRGGBB` (hex digits, either case).
    public static func validateColor(_ value: String, field: TenantField) throws(TenantValidationError) {
        let bytes = Array(value.utf8)
        let isHex: (UInt8) -> Bool = { (48...57).contains($0) || (65...70).contains($0) || (97...102).contains($0) }
        guard bytes.count == 7, bytes[0] == UInt8(ascii: "#"), bytes.dropFirst().allSatisfy(isHex) else {
            throw TenantValidationError(
                field: field, problem: "must be a colour like #RRGGBB, got \(TenantValidationError.quote(value))")
        }
    }

    /// `value` within `range` (inclusive).
    public static func validateRange<T: BinaryInteger>(
        _ value: T, _ range: ClosedRange<T>, field: TenantField
    ) throws(TenantValidationError) {
        guard range.contains(value) else {
            throw TenantValidationError(
                field: field, problem: "must be between \(range.lowerBound) and \(range.upperBound), got \(value)")
        }
    }

    private static func validateText(_ value: String, field: TenantField, maxLength: Int) throws(TenantValidationError)
    {
        guard !value.isEmpty, value.count <= maxLength else {
            throw TenantValidationError(field: field, problem: "must be 1-\(maxLength) characters, got \(value.count)")
        }
        guard !containsControl(value) else {
            throw TenantValidationError(
                field: field, problem: "must not contain control characters, got \(TenantValidationError.quote(value))")
        }
    }

    private static func containsControl(_ value: String) -> Bool {
        value.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }
}
