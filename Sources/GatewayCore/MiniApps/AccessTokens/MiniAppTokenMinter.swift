import Foundation

/// Signs mini-app access tokens (ES256 JWT from the tenant's key: `aud`, `scope`, `sub`,
/// `azp` = mini-app id, revocable `jti`). Implemented by the auth module.
public protocol MiniAppTokenMinter: Sendable {
    /// A signed token for `subject` and `miniAppID`, valid for `lifetime` (at most 5 minutes).
    func mint(tenant: Tenant, subject: String, miniAppID: String, audience: String, scopes: [String], lifetime: Duration) async throws -> (token: String, validUntil: Date)
}
