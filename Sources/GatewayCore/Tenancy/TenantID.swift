/// Tenant id rules: a slug `^[a-z0-9][a-z0-9-]{1,62}$` (2–63 characters), safe in URLs
/// (`/t/{tenant}`), cache keys and file names.
public enum TenantID {
    /// Shortest allowed id.
    public static let minLength = 2
    /// Longest allowed id.
    public static let maxLength = 63

    /// Whether `id` is a valid tenant id. Allocation-free, so the per-request tenant
    /// resolution can check a path segment (`Substring`) directly.
    public static func isValid(_ id: some StringProtocol) -> Bool {
        let bytes = id.utf8
        guard (minLength ... maxLength).contains(bytes.count), let first = bytes.first else { return false }
        guard ASCIIByte.isLowercaseLetterOrDigit(first) else { return false }
        return bytes.dropFirst().allSatisfy { ASCIIByte.isLowercaseLetterOrDigit($0) || $0 == UInt8(ascii: "-") }
    }

    /// Throws a ``TenantValidationError`` on field `.id` unless `id` is valid.
    public static func validate(_ id: String) throws(TenantValidationError) {
        guard isValid(id) else {
            throw TenantValidationError(
                field: .id,
                problem:
                    "must be 2-63 characters of a-z, 0-9 and '-', starting with a letter or digit, got \(TenantValidationError.quote(id))"
            )
        }
    }
}
