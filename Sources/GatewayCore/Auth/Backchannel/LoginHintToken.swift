import Foundation

/// A `login_hint_token` (CIBA §7.1): a JWT from an issuer the tenant trusts that names the
/// user, linked to a local user as token exchange links a trusted issuer's subject.
public enum LoginHintToken {
    /// The local subject `token` names.
    /// - Throws: ``OAuthError`` `expired_login_hint_token` past its `exp`, `invalid_request`
    ///   when it is no JWT of a trusted issuer or does not verify.
    public static func subject(
        _ token: String, tenantID: String, trusted: TrustedTokenVerifier, now: Date
    ) async throws -> String {
        let refused = OAuthError.invalidRequest("login_hint_token is not a JWT of an issuer this tenant trusts")
        guard let parsed = try? JWS.parse(token), case .object(let claims)? = try? JSONValue.decode(parsed.payload),
            let issuer = claims["iss"]?.stringValue, try await trusted.trust(tenantID: tenantID, issuer: issuer) != nil
        else { throw refused }
        if let exp = claims["exp"]?.doubleValue, exp + TokenVerifier.skew < now.timeIntervalSince1970 {
            throw OAuthError("expired_login_hint_token", "the login_hint_token expired")
        }
        do {
            return try await trusted.verify(token, claimedIssuer: issuer, tenantID: tenantID).subject
        } catch is TokenRejection {
            throw refused
        }
    }
}
