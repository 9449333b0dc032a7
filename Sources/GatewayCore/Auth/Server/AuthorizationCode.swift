import Crypto
import Foundation

/// What an authorization code stands for; stored in the ``Cache`` under the code's hash.
public struct AuthorizationGrant: Sendable, Codable, Equatable {
    public var tenantID: String
    public var clientID: String
    /// nil for codes from the authorization challenge endpoint (no redirect took place; the
    /// token request then carries no `redirect_uri`).
    public var redirectURI: String?
    public var codeChallenge: String
    public var subject: String
    public var scope: String
    public var nonce: String?
    public var authTime: Int64
    /// The login session this code ends (`sid` of its ID tokens); nil in codes issued
    /// before sessions existed.
    public var sessionID: String?
    /// The DPoP key the code is bound to (`jkt`): the token request must prove it.
    public var dpopJKT: String?
    /// When the code stops being redeemable (ms since 1970, on the server's clock); set by
    /// ``AuthorizationCodes/issue(_:lifetime:)``. The cache entry's TTL bounds it too.
    public var expiresAt: Int64?
    /// How the person authenticated (RFC 8176 `amr` values: `pwd`, `otp`, `sms`, `mail`), for
    /// the ID token; nil in codes from before it was recorded.
    public var amr: [String]? = nil
    /// The authentication context class the sign-in met (the ID token's `acr`).
    public var acr: String? = nil

    public init(
        tenantID: String, clientID: String, redirectURI: String?, codeChallenge: String, subject: String, scope: String,
        nonce: String?, authTime: Int64,
        sessionID: String? = nil, dpopJKT: String? = nil
    ) {
        self.sessionID = sessionID
        self.dpopJKT = dpopJKT
        self.tenantID = tenantID
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.codeChallenge = codeChallenge
        self.subject = subject
        self.scope = scope
        self.nonce = nonce
        self.authTime = authTime
    }
}

/// What redeeming an authorization code found.
public enum Redemption: Sendable, Equatable {
    /// The code's grant: redeemed now, never again.
    case granted(AuthorizationGrant)
    /// The code was redeemed before and produced the refresh family `familyID`.
    case usedBefore(familyID: String)
    /// Unknown, expired, or redeemed longer than ``AuthorizationCodes/usedMarkerLifetime`` ago.
    case unknown
}

/// Single-use authorization codes (≤ 60 s) in the cache; a redeemed code leaves a marker
/// naming the refresh family it produced, so a replay can revoke what it issued.
public struct AuthorizationCodes: Sendable {
    /// Lifetime of a code.
    public static let lifetime: Duration = .seconds(60)
    let cache: any Cache
    let clock: WallClock

    /// - Parameter clock: what a code's lifetime is counted on (the cache's TTL only frees
    ///   the entry).
    public init(cache: any Cache, clock: WallClock = .system) {
        self.cache = cache
        self.clock = clock
    }

    static func hash(_ code: String) -> String {
        Base64URL.sha256(code)
    }

    /// Issues a fresh code for `grant`.
    public func issue(
        _ grant: AuthorizationGrant, lifetime: Duration = AuthorizationCodes.lifetime
    ) async throws -> String {
        let code = Base64URL.random(byteCount: 32)
        var grant = grant
        grant.expiresAt = clock.milliseconds() + lifetime.wholeMilliseconds
        try await cache.set(
            "oauth:code:\(grant.tenantID):\(Self.hash(code))", Array(try JSONEncoder().encode(grant)), ttl: lifetime)
        return code
    }

    /// Takes the grant once, leaving in its place the refresh family the caller is about to
    /// create from it: one cache round trip (before, a code cost two: take it, then mark it
    /// used under a key of its own; issue 32). A replay finds the family in the same entry.
    /// - Parameter familyID: the family the caller creates when the grant checks out (if it
    ///   does not, a replay revokes a family that does not exist: nothing).
    public func redeem(_ code: String, tenantID: String, producing familyID: String) async throws -> Redemption {
        let key = "oauth:code:\(tenantID):\(Self.hash(code))"
        guard
            let bytes = try await cache.replace(
                key, with: Self.usedMarker + Array(familyID.utf8), ttl: Self.usedMarkerLifetime)
        else { return .unknown }
        if bytes.starts(with: Self.usedMarker) {
            // Put back the family the first redemption produced, so a later replay finds it too.
            try await cache.set(key, bytes, ttl: Self.usedMarkerLifetime)
            return .usedBefore(familyID: String(decoding: bytes.dropFirst(Self.usedMarker.count), as: UTF8.self))
        }
        let grant = try JSONDecoder().decode(AuthorizationGrant.self, from: Data(bytes))
        if let expiresAt = grant.expiresAt, clock.milliseconds() >= expiresAt { return .unknown }
        return .granted(grant)
    }

    /// How long a redeemed code remembers the family it produced.
    public static let usedMarkerLifetime: Duration = .seconds(600)
    /// What a redeemed code's entry starts with (a grant's JSON starts with `{`).
    private static let usedMarker = Array("used:".utf8)
}
