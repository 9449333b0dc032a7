import Foundation

/// An identity provider as operators read it (`gatewayctl idp list --json`, the admin API, the
/// audit trail): never the client secret, only its mask.
public struct IdentityProviderDocument: Sendable, Codable, Equatable {
    public var tenant: String
    public var alias: String
    public var displayName: String
    public var issuer: String
    public var clientID: String
    public var clientSecret: String?
    public var scopes: [String]
    public var linkByVerifiedEmail: Bool
    public var autoRedirect: Bool

    public init(_ provider: IdentityProvider) {
        tenant = provider.tenantID
        alias = provider.alias
        displayName = provider.displayName
        issuer = provider.issuer
        clientID = provider.clientID
        clientSecret = provider.clientSecret?.masked
        scopes = provider.scopes
        linkByVerifiedEmail = provider.linkByVerifiedEmail
        autoRedirect = provider.autoRedirect
    }
}

extension IdentityProvider {
    /// The rule a new provider must keep beside the tenant's `existing` ones (one auto-redirect
    /// at most), thrown as ``AuthStoreError/invalid(_:)``.
    public func checkBeside(_ existing: [IdentityProvider]) throws {
        if autoRedirect, let other = existing.first(where: \.autoRedirect) {
            throw AuthStoreError.invalid("identity provider \(other.alias) already has auto-redirect; only one may")
        }
    }
}

/// The audit record of an identity provider added or removed, by the admin API or by
/// gatewayctl on the database: the masked document.
public enum IdentityProviderTrail {
    public static func draft(
        _ old: IdentityProvider?, _ new: IdentityProvider?, actor: AuditActor, requestID: String?, time: Date
    ) -> AuditDraft {
        let provider = (new ?? old)!
        return .documents(
            .identityProvider, tenant: provider.tenantID, id: provider.alias,
            before: old.map(IdentityProviderDocument.init), after: new.map(IdentityProviderDocument.init), actor: actor,
            requestID: requestID, time: time, created: .created)
    }
}
