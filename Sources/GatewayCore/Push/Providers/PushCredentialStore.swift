import Foundation

/// Each tenant's push provider credentials (at most one per provider), sealed at rest on both
/// engines, bound to tenant and provider so a sealed value cannot be moved to another.
public protocol PushCredentialStore: Sendable {
    /// The tenant's credentials for `provider`, opened; nil when none are set.
    func credentials(tenantID: String, provider: PushProvider) async throws -> PushCredentials?
    /// Sets (replaces) the tenant's credentials for their provider; `trail(old)` (the
    /// credentials replaced, nil: none) is appended to the operators' audit trail in the same
    /// transaction.
    func setCredentials(
        _ credentials: PushCredentials, tenantID: String, now: Date, trail: (@Sendable (PushCredentials?) -> AuditDraft)?
    ) async throws
    /// Removes the tenant's credentials for `provider`, `trail(old)` appended in the same
    /// transaction; false (and nothing written) when there were none.
    func removeCredentials(
        tenantID: String, provider: PushProvider, trail: (@Sendable (PushCredentials) -> AuditDraft)?
    ) async throws -> Bool
}

extension PushCredentialStore {
    /// Sets the credentials without an audit record.
    public func setCredentials(_ credentials: PushCredentials, tenantID: String, now: Date) async throws {
        try await setCredentials(credentials, tenantID: tenantID, now: now, trail: nil)
    }

    /// Removes the credentials without an audit record.
    public func removeCredentials(tenantID: String, provider: PushProvider) async throws -> Bool {
        try await removeCredentials(tenantID: tenantID, provider: provider, trail: nil)
    }
}

/// The sealed form both engines store.
public enum PushCredentialRows {
    static func context(tenantID: String, provider: PushProvider) -> String {
        "push-credentials:\(tenantID):\(provider.rawValue)"
    }

    /// The sealed document of `credentials`.
    public static func seal(_ credentials: PushCredentials, tenantID: String, sealer: SecretSealer) throws -> String {
        let document = try JSONEncoder().encode(credentials)
        return try sealer.seal(
            String(decoding: document, as: UTF8.self),
            context: context(tenantID: tenantID, provider: credentials.provider))
    }

    /// The credentials a sealed document holds.
    public static func open(_ sealed: String, tenantID: String, provider: PushProvider, sealer: SecretSealer) throws
        -> PushCredentials
    {
        let document = try sealer.open(sealed, context: context(tenantID: tenantID, provider: provider))
        return try JSONDecoder().decode(PushCredentials.self, from: Data(document.utf8))
    }
}
