import Foundation

/// Durable federation settings of tenants: upstream identity providers, trusted token
/// issuers and the links from upstream identities to local users. Both engines implement it
/// with the auth stores (same database, same master key for the sealed client secrets).
public protocol FederationStore: Sendable {
    /// Every identity provider of `tenantID`, by alias.
    func identityProviders(tenantID: String) async throws -> [IdentityProvider]
    /// Inserts (throws `alreadyExists`; `invalid` for a second auto-redirect provider, checked
    /// in the insert's transaction); the client secret is sealed. `trail(new)` is appended to
    /// the operators' audit trail in the same transaction.
    func addIdentityProvider(_ provider: IdentityProvider, trail: (@Sendable (IdentityProvider) -> AuditDraft)?) async throws
    /// Throws `notFound` for an unknown alias. Links made through it stay (they name the
    /// issuer). `trail(old)` is appended in the same transaction.
    func removeIdentityProvider(
        tenantID: String, alias: String, trail: (@Sendable (IdentityProvider) -> AuditDraft)?
    ) async throws

    /// Every trusted issuer of `tenantID`, by issuer.
    func trustedIssuers(tenantID: String) async throws -> [TrustedIssuer]
    /// Inserts or replaces the trust of `issuer.issuer`; `trail(old, new)` (old nil: a new
    /// trust) is appended to the operators' audit trail in the same transaction.
    func trustIssuer(_ issuer: TrustedIssuer, trail: (@Sendable (TrustedIssuer?, TrustedIssuer) -> AuditDraft)?) async throws
    /// Throws `notFound` when the issuer is not trusted; `trail(old)` is appended in the same
    /// transaction.
    func untrustIssuer(tenantID: String, issuer: String, trail: (@Sendable (TrustedIssuer) -> AuditDraft)?) async throws

    /// The local user an upstream identity is linked to.
    func identityLink(tenantID: String, issuer: String, externalSubject: String) async throws -> IdentityLink?
    /// The upstream identities linked to a local user.
    func identityLinks(tenantID: String, subject: String) async throws -> [IdentityLink]
    /// Inserts (throws `alreadyExists` when the upstream identity is linked already).
    func addIdentityLink(_ link: IdentityLink) async throws
    /// Throws `notFound` when there is no such link.
    func removeIdentityLink(tenantID: String, issuer: String, externalSubject: String) async throws
}

extension FederationStore {
    /// Adds an identity provider without an audit record.
    public func addIdentityProvider(_ provider: IdentityProvider) async throws {
        try await addIdentityProvider(provider, trail: nil)
    }

    /// Removes an identity provider without an audit record.
    public func removeIdentityProvider(tenantID: String, alias: String) async throws {
        try await removeIdentityProvider(tenantID: tenantID, alias: alias, trail: nil)
    }

    /// Trusts an issuer without an audit record.
    public func trustIssuer(_ issuer: TrustedIssuer) async throws {
        try await trustIssuer(issuer, trail: nil)
    }

    /// Stops trusting an issuer without an audit record.
    public func untrustIssuer(tenantID: String, issuer: String) async throws {
        try await untrustIssuer(tenantID: tenantID, issuer: issuer, trail: nil)
    }
}
