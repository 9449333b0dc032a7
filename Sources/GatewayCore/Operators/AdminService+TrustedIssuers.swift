import Foundation

/// The external issuers a tenant trusts, on the admin API: whose access tokens its API accepts
/// like its own. The introspection secret goes in and is never answered.
extension AdminService {
    /// One page of the tenant's trusted issuers, by issuer.
    public func trustedIssuers(
        _ call: AdminCall, tenantID: String, cursor: String?, limit: Int
    ) async throws -> (items: [TrustedIssuerDocument], next: String?) {
        try await authorize(call, AdminPermission(.read, .trustedIssuer), tenantID: tenantID)
        _ = try await requireTenant(tenantID)
        let page = try Self.page(
            try await users.trustedIssuers(tenantID: tenantID), key: \.issuer, cursor: cursor, limit: limit)
        return (page.items.map(TrustedIssuerDocument.init), page.next)
    }

    /// Trusts `trust.issuer` (replacing an earlier trust of it whole). What the rules refuse
    /// answers 422 `invalid_trusted_issuer`, recorded, nothing written. Needs
    /// `trusted-issuer:create` (the record's verb is `update` when it replaced a trust).
    public func trustIssuer(
        _ call: AdminCall, tenantID: String, _ trust: TrustedIssuer
    ) async throws -> TrustedIssuerDocument {
        try await authorize(
            call, AdminPermission(.create, .trustedIssuer), tenantID: tenantID, resourceID: trust.issuer)
        _ = try await requireTenant(tenantID)
        var trust = trust
        (trust.tenantID, trust.createdAt) = (tenantID, clock.now())
        do {
            try trust.validate()
        } catch let error as AuthStoreError {
            try await refused(
                call, .create,
                AuditResource(type: .trustedIssuer, tenant: tenantID, id: String(trust.issuer.prefix(200))),
                AuditOutcome(status: 422, code: "invalid_trusted_issuer"))
            throw AdminError.invalidTrustedIssuer(error.description)
        }
        let (actor, requestID, now) = (call.actor, call.requestID, clock.now())
        try await users.trustIssuer(trust) { old, new in
            TrustedIssuerTrail.draft(old, new, actor: actor, requestID: requestID, time: now)
        }
        return TrustedIssuerDocument(trust)
    }

    /// Stops trusting `issuer` (404 `trusted_issuer_not_found` when the tenant does not).
    public func untrustIssuer(_ call: AdminCall, tenantID: String, issuer: String) async throws {
        try await authorize(call, AdminPermission(.delete, .trustedIssuer), tenantID: tenantID, resourceID: issuer)
        _ = try await requireTenant(tenantID)
        let (actor, requestID, now) = (call.actor, call.requestID, clock.now())
        do {
            try await users.untrustIssuer(tenantID: tenantID, issuer: issuer) { old in
                TrustedIssuerTrail.draft(old, nil, actor: actor, requestID: requestID, time: now)
            }
        } catch AuthStoreError.notFound {
            throw AdminError.trustedIssuerNotFound(issuer)
        }
    }
}
