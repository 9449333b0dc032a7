import Foundation

/// Signs mini-app access tokens (ES256 JWT from the tenant's key: `aud`, `scope`, `sub`,
/// `azp` = mini-app id, revocable `jti`). Implemented by the auth module.
public protocol MiniAppTokenMinter: Sendable {
    /// A signed token for `subject` and `miniAppID`, valid for `lifetime` (at most 5 minutes).
    func mint(
        tenant: Tenant, subject: String, miniAppID: String, audience: String, scopes: [String], lifetime: Duration
    ) async throws -> MintedToken
}

/// A signed mini-app token, its id and expiry.
public struct MintedToken: Sendable, Equatable {
    public var token: String
    public var jti: String
    public var validUntil: Date

    public init(token: String, jti: String, validUntil: Date) {
        self.token = token
        self.jti = jti
        self.validUntil = validUntil
    }
}
