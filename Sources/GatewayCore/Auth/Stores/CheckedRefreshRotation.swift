import Foundation

/// What a refresh's store step found and did
/// (``RefreshTokenStore/rotateChecked(tokenHash:tenantID:clientID:newHash:now:idleExpiry:accessToken:presentedDPoPJKT:)``).
public enum CheckedRefreshRotation: Sendable, Equatable {
    /// The family's own conditions refuse this refresh (see
    /// ``RefreshFamily/admitsRotation(presentedDPoPJKT:user:)``): nothing changed, the token is
    /// not burned; the caller decides what the refusal is.
    case held(RefreshFamily, user: LocalUser?)
    /// The conditions held (or the family was not this client's live one): the rotation's
    /// outcome, and the family's user as the same step read it (nil when the rotation is
    /// ``RefreshRotation/invalid``).
    case rotation(RefreshRotation, user: LocalUser?)
}

extension RefreshFamily {
    /// Whether a refresh presented with `presentedDPoPJKT` may go on to rotate (or be found
    /// reused): a family bound to a DPoP key needs that key, and its user must still exist and be
    /// enabled. A refused refresh leaves the token as it was (a wrong proof must not burn it).
    public func admitsRotation(presentedDPoPJKT: String?, user: LocalUser?) -> Bool {
        if let bound = dpopJKT, bound != presentedDPoPJKT { return false }
        guard let user, !user.disabled else { return false }
        return true
    }

    /// Whether this family is `clientID`'s at `tenantID` and not revoked: the only families
    /// whose conditions a refresh checks (any other is refused as invalid by the rotation).
    func isLive(tenantID: String, clientID: String) -> Bool {
        !revoked && self.tenantID == tenantID && self.clientID == clientID
    }
}

extension RefreshTokenStore {
    /// Reads the family with its user, checks, then rotates: two steps. An unknown token is
    /// refused on the read.
    public func rotateChecked(
        tokenHash: String, tenantID: String, clientID: String, newHash: String, now: Date, idleExpiry: Date,
        accessToken: IssuedAccessToken?, presentedDPoPJKT: String?
    ) async throws -> CheckedRefreshRotation {
        guard let (family, user) = try await familyWithUser(ofTokenHash: tokenHash) else {
            return .rotation(.invalid, user: nil)
        }
        if family.isLive(tenantID: tenantID, clientID: clientID),
            !family.admitsRotation(presentedDPoPJKT: presentedDPoPJKT, user: user)
        {
            return .held(family, user: user)
        }
        let outcome = try await rotate(
            tokenHash: tokenHash, tenantID: tenantID, clientID: clientID, newHash: newHash, now: now,
            idleExpiry: idleExpiry, accessToken: accessToken)
        return .rotation(outcome, user: outcome == .invalid ? nil : user)
    }
}
