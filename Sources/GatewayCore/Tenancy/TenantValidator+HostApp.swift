import Foundation

/// Rules of the host-app fields: version policy and feature flags.
extension TenantValidator {
    /// The most feature flags a tenant may have.
    public static let featureFlagsMaxCount = 100
    /// The most characters of a feature-flag name.
    public static let featureFlagNameMaxLength = 64

    /// Both versions follow the ``HostAppVersion`` grammar, minimum ≤ latest when both
    /// are set, and the update URL is an absolute https URL.
    public static func validateHostApp(_ policy: HostAppVersionPolicy) throws(TenantValidationError) {
        let minimum = try validateHostAppVersion(policy.minimumVersion, field: .hostAppMinimumVersion)
        let latest = try validateHostAppVersion(policy.latestVersion, field: .hostAppLatestVersion)
        if let minimum, let latest, latest < minimum {
            throw TenantValidationError(
                field: .hostAppMinimumVersion,
                problem:
                    "must not be above the latest version \(TenantValidationError.quote(latest.text)), got \(TenantValidationError.quote(minimum.text))"
            )
        }
        try validateHTTPSURL(policy.updateURL, field: .hostAppUpdateURL)
    }

    /// nil, or a version like `2`, `2.4` or `2.4.0.1` (1-4 numeric components of 1-6 digits).
    @discardableResult
    public static func validateHostAppVersion(
        _ value: String?, field: TenantField
    ) throws(TenantValidationError) -> HostAppVersion? {
        guard let value else { return nil }
        guard let version = HostAppVersion(value) else {
            throw TenantValidationError(
                field: field,
                problem:
                    "must be a version of 1-4 dot-separated numbers of 1-6 digits (like 2.4.0), got \(TenantValidationError.quote(value))"
            )
        }
        return version
    }

    /// nil, or an absolute https URL with a host (at most 2048 characters).
    public static func validateHTTPSURL(_ value: String?, field: TenantField) throws(TenantValidationError) {
        guard let value else { return }
        let problem = TenantValidationError(
            field: field, problem: "must be an absolute https URL, got \(TenantValidationError.quote(value))")
        guard URLComponents(string: value)?.scheme?.lowercased() == "https" else { throw problem }
        do {
            try validateURL(value, field: field)
        } catch {
            // Keep the length message; say "https" rather than "http(s)" otherwise.
            throw error.problem.hasPrefix("must be an absolute") ? problem : error
        }
    }

    /// At most 100 flags, each named like `^[a-z][a-z0-9_.-]{0,63}$`.
    public static func validateFeatureFlags(_ flags: [String: Bool]) throws(TenantValidationError) {
        guard flags.count <= featureFlagsMaxCount else {
            throw TenantValidationError(
                field: .featureFlags, problem: "must be at most \(featureFlagsMaxCount) flags, got \(flags.count)")
        }
        for name in flags.keys.sorted() {
            try validateFeatureFlagName(name)
        }
    }

    /// A flag name: a lowercase letter, then up to 63 of a-z, 0-9, '_', '.', '-'.
    public static func validateFeatureFlagName(_ name: String) throws(TenantValidationError) {
        guard isFeatureFlagName(name) else {
            throw TenantValidationError(
                field: .featureFlags,
                problem:
                    "names must be a lowercase letter then up to 63 of a-z, 0-9, '_', '.', '-', got \(TenantValidationError.quote(name))"
            )
        }
    }

    /// Whether `name` matches `^[a-z][a-z0-9_.-]{0,63}$`.
    public static func isFeatureFlagName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, bytes.count <= featureFlagNameMaxLength, ASCIIByte.isLowercaseLetter(first)
        else { return false }
        return bytes.dropFirst().allSatisfy { ASCIIByte.isLowercaseLetterOrDigit($0) || "_.-".utf8.contains($0) }
    }
}
