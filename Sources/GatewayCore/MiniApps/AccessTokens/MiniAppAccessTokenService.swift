import Foundation

/// An issued mini-app access token.
public struct MiniAppAccessToken: Sendable, Equatable {
    /// The signed JWT.
    public var token: String
    /// Expiry (`validUntil` in ms since epoch on the wire).
    public var validUntil: Date
    /// The granted audience.
    public var audience: String
    /// The granted scopes (as requested).
    public var scopes: [String]
}

/// A refused access-token request, carrying the SDK error type and message.
public struct AccessTokenDenied: Error, Sendable, Equatable, CustomStringConvertible {
    /// The SDK error type (`type.rawValue` goes in the body).
    public var type: AccessTokenErrorType
    /// Human-readable reason.
    public var message: String

    public var description: String { "\(type.rawValue): \(message)" }
}

/// Answers `POST /miniapps/{id}/access-token`: consent lookup, cached rule evaluation,
/// then minting.
public struct MiniAppAccessTokenService: Sendable, MiniAppTokenRevoker {
    /// Longest token lifetime the gateway mints.
    public static let maxLifetime: Duration = .seconds(300)

    private let consents: any ConsentStore
    private let answers: AccessTokenAnswerCache
    private let minter: any MiniAppTokenMinter
    private let lifetime: Duration
    private let ledger: (any MiniAppTokenLedger)?
    private let revocations: RevokedTokens?
    private let clock: WallClock

    /// - Parameters:
    ///   - ledger: where issued token ids are kept so ``revokeAll(_:)`` can revoke them.
    ///   - revocations: the revoked-id list the token verifiers consult.
    public init(
        consents: any ConsentStore, answers: AccessTokenAnswerCache, minter: any MiniAppTokenMinter,
        lifetime: Duration = .seconds(300),
        ledger: (any MiniAppTokenLedger)? = nil, revocations: RevokedTokens? = nil, clock: WallClock = .system
    ) {
        self.clock = clock
        self.ledger = ledger
        self.revocations = revocations
        self.consents = consents
        self.answers = answers
        self.minter = minter
        self.lifetime = min(lifetime, Self.maxLifetime)
    }

    /// The allow/deny answer for `request` (cached), without minting.
    public func answer(
        tenant: Tenant, userID: String, manifest: MiniAppPermissionManifest, request: AccessTokenRequest
    ) async throws -> AccessTokenAnswer {
        let owner = UserMiniAppKey(tenantID: tenant.id, userID: userID, miniAppID: manifest.miniAppID)
        let stored = try await consents.consents(of: owner)
        let consent = stored.status(of: CustomPermission.accessToken.rawValue)
        return await answers.answer(
            tenant: tenant, owner: owner, manifest: manifest, consentVersion: stored.version, request: request
        ) {
            AccessTokenPolicy.evaluate(request, manifest: manifest, consent: consent)
        }
    }

    /// Mints a token when the rules allow; throws ``AccessTokenDenied`` otherwise.
    public func issue(
        tenant: Tenant, userID: String, manifest: MiniAppPermissionManifest, request: AccessTokenRequest
    ) async throws -> MiniAppAccessToken {
        switch try await answer(tenant: tenant, userID: userID, manifest: manifest, request: request) {
        case .denied(let type, let message):
            throw AccessTokenDenied(type: type, message: message)
        case .allowed:
            let minted = try await minter.mint(
                tenant: tenant, subject: userID, miniAppID: manifest.miniAppID,
                audience: request.audience, scopes: request.scopes, lifetime: lifetime
            )
            let owner = UserMiniAppKey(tenantID: tenant.id, userID: userID, miniAppID: manifest.miniAppID)
            try await ledger?.record(owner, jti: minted.jti, expiresAt: minted.validUntil)
            return MiniAppAccessToken(
                token: minted.token, validUntil: minted.validUntil, audience: request.audience, scopes: request.scopes)
        }
    }

    /// Revokes every live token issued to `owner` (its user, for its mini app); returns how many.
    @discardableResult
    public func revokeAll(_ owner: UserMiniAppKey) async throws -> Int {
        guard let ledger, let revocations else { return 0 }
        let live = try await ledger.takeLive(owner, now: clock.now())
        for token in live {
            try await revocations.revoke(tenantID: owner.tenantID, jti: token.jti, expiresAt: token.expiresAt)
        }
        return live.count
    }
}
