import Foundation

/// Durable federation settings of tenants: upstream identity providers, trusted token
/// issuers and the links from upstream identities to local users. Both engines implement it
/// with the auth stores (same database, same master key for the sealed client secrets).
public protocol FederationStore: Sendable {
    /// Every identity provider of `tenantID`, by alias.
    func identityProviders(tenantID: String) async throws -> [IdentityProvider]
    /// Inserts (throws `alreadyExists`); the client secret is sealed.
    func addIdentityProvider(_ provider: IdentityProvider) async throws
    /// Throws `notFound` for an unknown alias. Links made through it stay (they name the issuer).
    func removeIdentityProvider(tenantID: String, alias: String) async throws

    /// Every trusted issuer of `tenantID`, by issuer.
    func trustedIssuers(tenantID: String) async throws -> [TrustedIssuer]
    /// Inserts or replaces the trust of `issuer.issuer`.
    func trustIssuer(_ issuer: TrustedIssuer) async throws
    /// Throws `notFound` when the issuer is not trusted.
    func untrustIssuer(tenantID: String, issuer: String) async throws

    /// The local user an upstream identity is linked to.
    func identityLink(tenantID: String, issuer: String, externalSubject: String) async throws -> IdentityLink?
    /// The upstream identities linked to a local user.
    func identityLinks(tenantID: String, subject: String) async throws -> [IdentityLink]
    /// Inserts (throws `alreadyExists` when the upstream identity is linked already).
    func addIdentityLink(_ link: IdentityLink) async throws
    /// Throws `notFound` when there is no such link.
    func removeIdentityLink(tenantID: String, issuer: String, externalSubject: String) async throws
}
