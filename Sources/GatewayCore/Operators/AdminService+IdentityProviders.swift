import Foundation

/// A tenant's upstream identity providers on the admin API ("Continue with …" on its sign-in
/// page). The client secret goes in sealed and is never answered.
extension AdminService {
    /// One page of the tenant's providers, by alias.
    public func identityProviders(
        _ call: AdminCall, tenantID: String, cursor: String?, limit: Int
    ) async throws -> (items: [IdentityProviderDocument], next: String?) {
        try await authorize(call, AdminPermission(.read, .identityProvider), tenantID: tenantID)
        _ = try await requireTenant(tenantID)
        let all = try await users.identityProviders(tenantID: tenantID)
        let page = try Self.page(all, key: \.alias, cursor: cursor, limit: limit)
        return (page.items.map(IdentityProviderDocument.init), page.next)
    }

    /// One provider (404 `identity_provider_not_found`).
    public func identityProvider(
        _ call: AdminCall, tenantID: String, alias: String
    ) async throws -> IdentityProviderDocument {
        try await authorize(call, AdminPermission(.read, .identityProvider), tenantID: tenantID, resourceID: alias)
        _ = try await requireTenant(tenantID)
        guard let found = try await users.identityProviders(tenantID: tenantID).first(where: { $0.alias == alias })
        else {
            throw AdminError.identityProviderNotFound(alias)
        }
        return IdentityProviderDocument(found)
    }

    /// Adds a provider. A taken alias answers 409 `identity_provider_exists`; what the rules
    /// refuse (an alias, an issuer, a second auto-redirect: the store checks it in the insert's
    /// transaction) 422 `invalid_identity_provider`; both recorded, nothing written.
    public func addIdentityProvider(
        _ call: AdminCall, tenantID: String, _ provider: IdentityProvider
    ) async throws -> IdentityProviderDocument {
        try await authorize(
            call, AdminPermission(.create, .identityProvider), tenantID: tenantID, resourceID: provider.alias)
        _ = try await requireTenant(tenantID)
        var provider = provider
        (provider.tenantID, provider.createdAt) = (tenantID, clock.now())
        let resource = AuditResource(type: .identityProvider, tenant: tenantID, id: String(provider.alias.prefix(64)))
        let (actor, requestID, now) = (call.actor, call.requestID, clock.now())
        do {
            try await users.addIdentityProvider(provider) { new in
                IdentityProviderTrail.draft(nil, new, actor: actor, requestID: requestID, time: now)
            }
        } catch let error as AuthStoreError {
            let refusal: (AdminError, AuditOutcome) =
                switch error {
                case .alreadyExists:
                    (
                        .identityProviderExists(provider.alias),
                        AuditOutcome(status: 409, code: "identity_provider_exists")
                    )
                case .invalid, .notFound:
                    (
                        .invalidIdentityProvider(error.description),
                        AuditOutcome(status: 422, code: "invalid_identity_provider")
                    )
                }
            try await refused(call, .create, resource, refusal.1)
            throw refusal.0
        }
        return IdentityProviderDocument(provider)
    }

    /// Removes a provider (404 `identity_provider_not_found`); links made through it stay.
    public func removeIdentityProvider(_ call: AdminCall, tenantID: String, alias: String) async throws {
        try await authorize(call, AdminPermission(.delete, .identityProvider), tenantID: tenantID, resourceID: alias)
        _ = try await requireTenant(tenantID)
        let (actor, requestID, now) = (call.actor, call.requestID, clock.now())
        do {
            try await users.removeIdentityProvider(tenantID: tenantID, alias: alias) { old in
                IdentityProviderTrail.draft(old, nil, actor: actor, requestID: requestID, time: now)
            }
        } catch AuthStoreError.notFound {
            throw AdminError.identityProviderNotFound(alias)
        }
    }
}
