import Foundation

/// A tenant's push provider credentials on the admin API: written, never read back (the key
/// is masked on every path but gatewayctl's `--reveal --local`), each change recorded with the
/// masked documents before and after.
extension AdminService {
    /// The providers the tenant has credentials for, masked.
    public func pushCredentials(_ call: AdminCall, tenantID: String) async throws -> [PushCredentialDocument] {
        try await authorize(call, AdminPermission(.read, .pushCredential), tenantID: tenantID)
        _ = try await requireTenant(tenantID)
        var found: [PushCredentialDocument] = []
        for provider in PushProvider.allCases {
            if let credentials = try await pushCredentialStore.credentials(tenantID: tenantID, provider: provider) {
                found.append(PushCredentialDocument(credentials))
            }
        }
        return found
    }

    /// One provider's credentials, masked (404 `push_credentials_not_found`).
    public func pushCredential(_ call: AdminCall, tenantID: String, provider: PushProvider) async throws -> PushCredentialDocument {
        try await authorize(call, AdminPermission(.read, .pushCredential), tenantID: tenantID, resourceID: provider.rawValue)
        _ = try await requireTenant(tenantID)
        guard let credentials = try await pushCredentialStore.credentials(tenantID: tenantID, provider: provider) else {
            throw AdminError.pushCredentialsNotFound(provider.rawValue)
        }
        return PushCredentialDocument(credentials)
    }

    /// Sets (replaces) one provider's credentials; `make()` builds them from the request and
    /// throws ``PushCredentialError`` for what the provider's rules refuse (422, recorded).
    public func setPushCredential(
        _ call: AdminCall, tenantID: String, provider: PushProvider, _ make: () throws -> PushCredentials
    ) async throws -> PushCredentialDocument {
        try await authorize(call, AdminPermission(.update, .pushCredential), tenantID: tenantID, resourceID: provider.rawValue)
        _ = try await requireTenant(tenantID)
        let credentials: PushCredentials
        do {
            credentials = try make()
        } catch let error as PushCredentialError {
            try await refused(
                call, .update, AuditResource(type: .pushCredential, tenant: tenantID, id: provider.rawValue),
                AuditOutcome(status: 422, code: "invalid_push_credentials"))
            throw AdminError.invalidPushCredentials(error.description)
        }
        let (actor, requestID, now) = (call.actor, call.requestID, clock.now())
        try await pushCredentialStore.setCredentials(credentials, tenantID: tenantID, now: now) { old in
            PushCredentialTrail.draft(
                tenantID: tenantID, provider: provider, old, credentials, actor: actor, requestID: requestID, time: now)
        }
        return PushCredentialDocument(credentials)
    }

    /// Removes one provider's credentials (404 when there are none): its deliveries then fail.
    public func removePushCredential(_ call: AdminCall, tenantID: String, provider: PushProvider) async throws {
        try await authorize(call, AdminPermission(.delete, .pushCredential), tenantID: tenantID, resourceID: provider.rawValue)
        _ = try await requireTenant(tenantID)
        let (actor, requestID, now) = (call.actor, call.requestID, clock.now())
        let removed = try await pushCredentialStore.removeCredentials(tenantID: tenantID, provider: provider) { old in
            PushCredentialTrail.draft(
                tenantID: tenantID, provider: provider, old, nil, actor: actor, requestID: requestID, time: now)
        }
        guard removed else { throw AdminError.pushCredentialsNotFound(provider.rawValue) }
    }
}
