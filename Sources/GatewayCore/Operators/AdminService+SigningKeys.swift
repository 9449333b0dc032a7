import Foundation

/// A tenant's signing keys on the admin API: read them, rotate (an action, with
/// `Idempotency-Key`), retire. The rules are ``SigningKeyService``'s, as for gatewayctl.
extension AdminService {
    /// The tenant's keys by kid, in phase `state` when given, after `cursor` (a kid).
    public func signingKeys(
        _ call: AdminCall, tenantID: String, state: SigningKey.Phase?, cursor: String?, limit: Int
    ) async throws -> (items: [SigningKeyDocument], next: String?) {
        try Self.checkLimit(limit)
        try await authorize(call, AdminPermission(.read, .signingKey), tenantID: tenantID)
        _ = try await requireTenant(tenantID)
        let all = try await signingKeyService.documents(tenantID: tenantID, at: clock.now())
            .filter { state == nil || $0.state == state?.rawValue }
            .sorted { $0.kid < $1.kid }
        return try Self.page(all, key: \.kid, cursor: cursor, limit: limit)
    }

    /// Adds a key (see ``SigningKeyService/rotate``), recorded with its schedule.
    public func rotateSigningKey(
        _ call: AdminCall, tenantID: String, algorithm: SigningKey.Algorithm, rsaBits: Int, signAfter: TimeInterval
    ) async throws -> SigningKeyDocument {
        try await authorize(call, AdminPermission(.act, .signingKey), tenantID: tenantID)
        _ = try await requireTenant(tenantID)
        do {
            return try await signingKeyService.rotate(
                tenantID: tenantID, algorithm: algorithm, rsaBits: rsaBits, signAfter: signAfter, now: clock.now(),
                actor: call.actor, requestID: call.requestID)
        } catch let error as SigningKeyError {
            throw Self.admin(error)
        }
    }

    /// Retires `kid` (see ``SigningKeyService/retire``); a retirement that would leave the
    /// algorithm without a signer is refused (409) and recorded.
    public func retireSigningKey(
        _ call: AdminCall, tenantID: String, kid: String, immediately: Bool
    ) async throws -> SigningKeyRetirement {
        try await authorize(call, AdminPermission(.act, .signingKey), tenantID: tenantID, resourceID: kid)
        _ = try await requireTenant(tenantID)
        do {
            return try await signingKeyService.retire(
                tenantID: tenantID, kid: kid, immediately: immediately, now: clock.now(), actor: call.actor,
                requestID: call.requestID)
        } catch let error as SigningKeyError {
            if case .onlySigner = error {
                try await refused(
                    call, .act, AuditResource(type: .signingKey, tenant: tenantID, id: kid),
                    AuditOutcome(status: 409, code: "signing_key_conflict"))
            }
            throw Self.admin(error)
        }
    }

    private var signingKeyService: SigningKeyService { SigningKeyService(keys: signingKeys, clients: clients) }

    private static func admin(_ error: SigningKeyError) -> AdminError {
        switch error {
        case .invalidRSABits: .badRequest("rsaBits must be 2048, 3072 or 4096")
        case .invalidSignAfter: .badRequest("signAfterSeconds must be 0-\(Int(SigningKeyService.maxSignAfter))")
        case .notPublished(let kid): .signingKeyNotFound(kid)
        case .onlySigner(let kid, let algorithm):
            .signingKeyConflict(
                "\(kid) is the tenant's only \(algorithm.rawValue) key that signs: rotate first, or retire it immediately")
        }
    }
}
