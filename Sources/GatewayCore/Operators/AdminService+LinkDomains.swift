import Foundation

/// A tenant's link domains on the admin API: the hosts its universal links and
/// apple-app-site-association are served for, with the app ids each allows.
extension AdminService {
    /// One page of the tenant's domains, by host.
    public func linkDomains(
        _ call: AdminCall, tenantID: String, cursor: String?, limit: Int
    ) async throws -> (items: [TenantDomain], next: String?) {
        try await authorize(call, AdminPermission(.read, .linkDomain), tenantID: tenantID)
        _ = try await requireTenant(tenantID)
        return try Self.page(try await domains.domains(tenantID: tenantID), key: \.host, cursor: cursor, limit: limit)
    }

    /// One host the tenant serves (404 `link_domain_not_found` otherwise).
    public func linkDomain(_ call: AdminCall, tenantID: String, host: String) async throws -> TenantDomain {
        let name = host.lowercased()
        try await authorize(call, AdminPermission(.read, .linkDomain), tenantID: tenantID, resourceID: name)
        _ = try await requireTenant(tenantID)
        guard let found = try await domains.domain(host: name), found.tenantID == tenantID else {
            throw AdminError.linkDomainNotFound(name)
        }
        return found
    }

    /// Adds `host` to the tenant, or `appIDs` and `androidApps` to a host it has (an Android
    /// app already there gains the new fingerprints). A host or app the rules refuse, or no
    /// app at all, answers 422 `invalid_link_domain`, another tenant's host 409 `link_domain_taken`
    /// (without naming the tenant); both are recorded. Needs `link-domain:create` either way
    /// (one operation, one permission); the record says `update` when the host was there.
    public func addLinkDomain(
        _ call: AdminCall, tenantID: String, host: String, appIDs: [String], androidApps: [AndroidApp] = []
    ) async throws -> TenantDomain {
        let name = host.lowercased()
        let verb = AdminVerb.create
        try await authorize(call, AdminPermission(verb, .linkDomain), tenantID: tenantID, resourceID: name)
        _ = try await requireTenant(tenantID)
        let resource = AuditResource(type: .linkDomain, tenant: tenantID, id: String(name.prefix(253)))
        do {
            _ = try TenantDomainError.host(host)
            guard !appIDs.isEmpty || !androidApps.isEmpty else {
                throw AdminError.invalidLinkDomain(
                    "give at least one app: appIDs (TEAMID.bundle.id) or androidApps (packageName and fingerprints)")
            }
            let apps = try TenantDomainError.checked(appIDs: appIDs, androidApps: androidApps)
            let (actor, requestID, now) = (call.actor, call.requestID, clock.now())
            return try await domains.add(host: name, tenantID: tenantID, appIDs: appIDs, androidApps: apps) { old, new in
                LinkDomainTrail.draft(old, new, actor: actor, requestID: requestID, time: now)
            }
        } catch let error as TenantDomainError {
            let refusal: (AdminError, AuditOutcome) =
                switch error {
                case .hostTaken: (.linkDomainTaken(name), AuditOutcome(status: 409, code: "link_domain_taken"))
                case .notFound: (.linkDomainNotFound(name), AuditOutcome(status: 404, code: "link_domain_not_found"))
                case .invalidHost, .invalidAppID, .invalidAndroidApp:
                    (.invalidLinkDomain(error.description), AuditOutcome(status: 422, code: "invalid_link_domain"))
                }
            try await refused(call, verb, resource, refusal.1)
            throw refusal.0
        } catch AdminError.invalidLinkDomain(let detail) {
            try await refused(call, verb, resource, AuditOutcome(status: 422, code: "invalid_link_domain"))
            throw AdminError.invalidLinkDomain(detail)
        }
    }

    /// Removes `host` from the tenant (404 `link_domain_not_found` when it has no such host).
    public func removeLinkDomain(_ call: AdminCall, tenantID: String, host: String) async throws {
        let name = host.lowercased()
        try await authorize(call, AdminPermission(.delete, .linkDomain), tenantID: tenantID, resourceID: name)
        _ = try await requireTenant(tenantID)
        let (actor, requestID, now) = (call.actor, call.requestID, clock.now())
        do {
            try await domains.remove(host: name, tenantID: tenantID) { old in
                LinkDomainTrail.draft(old, nil, actor: actor, requestID: requestID, time: now)
            }
        } catch is TenantDomainError {
            throw AdminError.linkDomainNotFound(name)
        }
    }
}
