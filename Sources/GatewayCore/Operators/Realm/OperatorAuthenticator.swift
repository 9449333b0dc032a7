import Foundation
import Logging

/// One authenticated call of the admin API: who, the bindings it holds right now, and how it
/// authenticated (for the audit trail).
public struct OperatorSession: Sendable {
    public var caller: Operator
    public var bindings: [RoleBinding]
    /// The access token's id: a prefix of its hash (never the token).
    public var tokenID: String
    public var clientID: String?
    /// `client_secret` (a service account), `password` or `password+totp` (a person).
    public var method: String

    public init(caller: Operator, bindings: [RoleBinding], tokenID: String, clientID: String?, method: String) {
        self.caller = caller
        self.bindings = bindings
        self.tokenID = tokenID
        self.clientID = clientID
        self.method = method
    }
}

/// Why the operator realm's token endpoint refuses (RFC 6749 §5.2).
public enum OperatorTokenError: Error, Sendable, Equatable {
    case invalidRequest(String)
    case unsupportedGrantType
    case invalidClient
    /// A code or refresh token that is unknown, used, expired, or not this client's.
    case invalidGrant(String)
    /// RFC 8628 §3.5: no one approved the device code yet; poll again after the interval.
    case authorizationPending
    /// RFC 8628 §3.5: polled faster than the interval, which grows by 5 seconds.
    case slowDown
    /// RFC 8628 §3.5: the device code expired (or never was); start again.
    case expiredToken
}

/// A token request's parameters (RFC 6749 §4.1.3, §4.4.2, §6).
public struct OperatorTokenRequest: Sendable {
    public var grantType: String
    public var clientID: String?
    public var secret: String?
    public var code: String?
    public var codeVerifier: String?
    public var redirectURI: String?
    public var refreshToken: String?
    /// The device code of a device authorization (RFC 8628).
    public var deviceCode: String?
    /// A signed `client_assertion` (`private_key_jwt`) and its type.
    public var assertion: String?
    public var assertionType: String?
    /// The audiences an assertion may name: the token endpoint's URL and the realm's issuer.
    public var audiences: Set<String>

    public init(
        grantType: String, clientID: String?, secret: String? = nil, code: String? = nil, codeVerifier: String? = nil,
        redirectURI: String? = nil, refreshToken: String? = nil, deviceCode: String? = nil, assertion: String? = nil,
        assertionType: String? = nil, audiences: Set<String> = []
    ) {
        self.deviceCode = deviceCode
        self.assertion = assertion
        self.assertionType = assertionType
        self.audiences = audiences
        self.grantType = grantType
        self.clientID = clientID
        self.secret = secret
        self.code = code
        self.codeVerifier = codeVerifier
        self.redirectURI = redirectURI
        self.refreshToken = refreshToken
    }
}

/// What the token endpoint answers: an access token and, for a person, a refresh token.
public struct OperatorIssuedTokens: Sendable {
    public var accessToken: String
    public var expiresIn: Int
    public var refreshToken: String?
}

/// The operator realm's token endpoint and token checks (issue 48). Service accounts trade
/// their secret for an access token (`client_credentials`); people trade the code of a
/// sign-in (``OperatorSignIn``) with its PKCE verifier (`authorization_code`) and keep
/// going with a rotating refresh token (`refresh_token`). Access tokens are opaque, stored
/// as a hash, valid ``lifetime``; every admin call resolves its token to the operator and
/// the bindings it holds at that moment, so a binding removed or an operator disabled takes
/// effect on the next call, on every replica.
public struct OperatorAuthenticator: Sendable {
    private let operators: any OperatorStore
    let clock: WallClock
    /// Remembers assertions' `jti`s until they expire (a replayed assertion is refused).
    let cache: any Cache
    public let lifetime: Duration
    /// How long a person stays signed in without signing in again, refreshes included.
    public let sessionLifetime: Duration
    /// How long a refresh token stays good unused.
    public let refreshIdle: Duration
    /// Where an ended sign-in (a reused code or refresh token) is reported.
    let logger: Logger

    public init(
        operators: any OperatorStore, cache: any Cache, clock: WallClock = .system, lifetime: Duration = .seconds(900),
        sessionLifetime: Duration = .seconds(12 * 3600), refreshIdle: Duration = .seconds(2 * 3600),
        logger: Logger = Logger(label: "superapp.operators")
    ) {
        self.logger = logger
        self.operators = operators
        self.cache = cache
        self.clock = clock
        self.lifetime = lifetime
        self.sessionLifetime = sessionLifetime
        self.refreshIdle = refreshIdle
    }

    /// Access token prefix: says what a leaked string is (secret scanners match it).
    static let prefix = "sgo_"
    /// Refresh token prefix.
    static let refreshPrefix = "sgr_"

    /// The grant types the token endpoint serves.
    public static let grantTypes = [
        "authorization_code", "refresh_token", "client_credentials", "urn:ietf:params:oauth:grant-type:device_code",
    ]

    /// Answers a token request.
    public func token(_ request: OperatorTokenRequest) async throws -> OperatorIssuedTokens {
        switch request.grantType {
        case "client_credentials": return try await clientCredentials(request)
        case "authorization_code": return try await authorizationCode(request)
        case "refresh_token": return try await refresh(request)
        case Self.deviceGrantType: return try await deviceCode(request)
        default: throw OperatorTokenError.unsupportedGrantType
        }
    }

    private func clientCredentials(_ request: OperatorTokenRequest) async throws -> OperatorIssuedTokens {
        if let assertion = request.assertion { return try await signedAssertion(assertion, request) }
        guard let clientID = request.clientID, let secret = request.secret, !clientID.isEmpty, !secret.isEmpty,
            OperatorName.isValid(clientID), secret.utf8.count <= 200
        else { throw OperatorTokenError.invalidClient }
        guard let found = try await operators.findOperator(named: clientID), found.kind == .serviceAccount,
            !found.disabled, let hash = found.secretHash, ClientSecret.verify(secret, hash: hash)
        else { throw OperatorTokenError.invalidClient }
        return try await issue(operatorID: found.id, clientID: clientID, method: "client_secret", session: nil)
    }

    /// `private_key_jwt` (RFC 7523 §2.2): the service account signed an assertion with a key
    /// whose public half it registered; each `jti` is good once.
    private func signedAssertion(_ jwt: String, _ request: OperatorTokenRequest) async throws -> OperatorIssuedTokens {
        guard request.secret == nil,
            let assertion = try? ClientAssertion(type: request.assertionType, jwt: jwt, audiences: request.audiences),
            let clientID = try? assertion.claimedClientID(), request.clientID == nil || request.clientID == clientID,
            OperatorName.isValid(clientID),
            let found = try await operators.findOperator(named: clientID), found.kind == .serviceAccount,
            !found.disabled, found.jwks != nil,
            let checked = try? assertion.check(
                clientID: clientID, keys: JWK.assertionKeys(found.jwks), now: clock.now())
        else { throw OperatorTokenError.invalidClient }
        let ttl = max(1, checked.expiresAt.timeIntervalSince(clock.now()) + TokenVerifier.skew)
        guard
            try await cache.setIfAbsent(
                "operator:jti:\(found.id):\(CacheKey.escape(checked.jti))", [1], ttl: .seconds(Int64(ttl.rounded(.up))))
        else { throw OperatorTokenError.invalidClient }
        return try await issue(operatorID: found.id, clientID: clientID, method: "private_key_jwt", session: nil)
    }

    private func authorizationCode(_ request: OperatorTokenRequest) async throws -> OperatorIssuedTokens {
        let client = try publicClient(request)
        guard let code = request.code, code.utf8.count <= 100, let verifier = request.codeVerifier,
            let redirectURI = request.redirectURI
        else { throw OperatorTokenError.invalidRequest("code, code_verifier and redirect_uri are required") }
        guard PKCE.isValidVerifier(verifier) else {
            throw OperatorTokenError.invalidRequest("code_verifier must be 43-128 unreserved characters")
        }
        let grant = try await take(code, kind: .code)
        guard grant?.clientID == client.id, grant?.redirectURI == redirectURI, let grant,
            let challenge = grant.codeChallenge, PKCE.verify(verifier: verifier, challenge: challenge)
        else { throw OperatorTokenError.invalidGrant("the code is unknown, used, expired or not this client's") }
        return try await issue(
            operatorID: grant.operatorID, clientID: client.id, method: grant.method,
            session: (grant.sessionID, grant.sessionExpiresAt))
    }

    private func refresh(_ request: OperatorTokenRequest) async throws -> OperatorIssuedTokens {
        let client = try publicClient(request)
        guard let token = request.refreshToken, token.hasPrefix(Self.refreshPrefix), token.utf8.count <= 100 else {
            throw OperatorTokenError.invalidGrant("the refresh token is unknown, used or expired")
        }
        guard let grant = try await take(token, kind: .refresh), grant.clientID == client.id else {
            throw OperatorTokenError.invalidGrant("the refresh token is unknown, used or expired")
        }
        return try await issue(
            operatorID: grant.operatorID, clientID: client.id, method: grant.method,
            session: (grant.sessionID, grant.sessionExpiresAt))
    }

    /// Takes a code or refresh token; nil when it is unknown, expired or used. A used one
    /// presented again ends the sign-in it belongs to (the store deletes its grants and access
    /// tokens), as RFC 9700 §4.14.2 and RFC 6749 §4.1.2 ask: whoever holds the newer token,
    /// the person or a thief, must sign in again.
    private func take(_ credential: String, kind: OperatorGrant.Kind) async throws -> OperatorGrant? {
        switch try await operators.consumeGrant(hash: ClientSecret.hash(credential), kind: kind, now: clock.now()) {
        case .taken(let grant): return grant
        case .reused(let sessionID):
            logger.warning(
                "operator sign-in ended: a used \(kind.rawValue) was presented again",
                metadata: ["session": "\(sessionID.prefix(8))"])
            return nil
        case .none: return nil
        }
    }

    /// A new sign-in's id.
    static func newSessionID() -> String { Base64URL.random(byteCount: 16) }

    private func publicClient(_ request: OperatorTokenRequest) throws -> OperatorRealmClient {
        guard let client = OperatorRealmClient.named(request.clientID), request.secret == nil else {
            throw OperatorTokenError.invalidClient
        }
        return client
    }

    /// An access token (and, within a person's `session`, a refresh token) for the operator;
    /// nil when the operator is gone or disabled meanwhile.
    func issue(
        operatorID: String, clientID: String, method: String, session: (id: String, expiresAt: Date)?
    ) async throws
        -> OperatorIssuedTokens
    {
        let now = clock.now()
        let token = Self.prefix + Base64URL.random(byteCount: 32)
        let seconds = Int(lifetime.components.seconds)
        let stored = try await operators.storeToken(
            hash: ClientSecret.hash(token), operatorID: operatorID, clientID: clientID, method: method,
            sessionID: session?.id, expiresAt: now.addingTimeInterval(Double(seconds)), now: now)
        guard stored else { throw OperatorTokenError.invalidGrant("the operator is disabled or gone") }
        var issued = OperatorIssuedTokens(accessToken: token, expiresIn: seconds, refreshToken: nil)
        if let session, session.expiresAt > now {
            let refresh = Self.refreshPrefix + Base64URL.random(byteCount: 32)
            try await operators.storeGrant(
                OperatorGrant(
                    kind: .refresh, hash: ClientSecret.hash(refresh), operatorID: operatorID, clientID: clientID,
                    method: method,
                    expiresAt: min(
                        session.expiresAt, now.addingTimeInterval(Double(refreshIdle.wholeMilliseconds) / 1000)),
                    sessionExpiresAt: session.expiresAt, sessionID: session.id), now: now)
            issued.refreshToken = refresh
        }
        return issued
    }

    /// The session of a bearer token; nil when it is unknown, expired, or its operator is
    /// disabled or gone.
    public func session(bearer token: String) async throws -> OperatorSession? {
        guard token.hasPrefix(Self.prefix), token.utf8.count <= 100 else { return nil }
        let hash = ClientSecret.hash(token)
        guard let found = try await operators.tokenOwner(hash: hash, now: clock.now()), !found.owner.disabled
        else { return nil }
        return OperatorSession(
            caller: found.owner, bindings: try await operators.bindings(operatorID: found.owner.id),
            tokenID: String(hash.dropFirst("sha256$".count).prefix(16)), clientID: found.clientID,
            method: found.method)
    }
}
