import Foundation
import NIOPosix

/// An authorization request of the operator realm (RFC 6749 §4.1.1 with PKCE, RFC 7636).
public struct OperatorAuthorizationRequest: Sendable, Equatable {
    public var responseType: String?
    public var clientID: String?
    public var redirectURI: String?
    public var state: String?
    public var codeChallenge: String?
    public var codeChallengeMethod: String?

    public init(
        responseType: String?, clientID: String?, redirectURI: String?, state: String?, codeChallenge: String?,
        codeChallengeMethod: String?
    ) {
        self.responseType = responseType
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.state = state
        self.codeChallenge = codeChallenge
        self.codeChallengeMethod = codeChallengeMethod
    }
}

/// Why an operator authorization request is refused: before its redirect URI is trusted
/// the browser sees a page (never a redirect to an unchecked URI); after, the client gets
/// an RFC 6749 §4.1.2.1 error on its redirect URI.
public enum OperatorAuthorizationError: Error, Sendable, Equatable {
    case page(String)
    case redirect(String)
}

/// What became of a sign-in form's post.
public enum OperatorSignInOutcome: Sendable, Equatable {
    /// Signed in: send the browser here (the client's redirect URI with code, state, iss).
    case redirect(String)
    /// Unknown operator, wrong password, a service account or a disabled operator: one answer.
    case failed
    /// The password was right and the operator has a second factor: ask for its code.
    case codeRequired
    /// A wrong or replayed one-time code.
    case codeFailed
    /// The realm requires a second factor and this operator has none enrolled.
    case secondFactorNotEnrolled
    /// Held back by the throttle; nothing was checked.
    case throttled(retryAfter: Duration)
}

/// People signing in to the operator realm (issue 48): the admin listener's sign-in page
/// checks a name, a password (scrypt, off the cooperative pool) and, when the operator has
/// one (or the realm requires one), a TOTP code, under the same ``LoginThrottle`` as the
/// tenants' sign-in; a success is a one-time code for the built-in client's redirect URI,
/// traded with its PKCE verifier at the token endpoint (``OperatorAuthenticator``).
public struct OperatorSignIn: Sendable {
    let operators: any OperatorStore
    private let throttle: LoginThrottle
    let cache: any Cache
    private let hasher: PasswordHasher
    let clock: WallClock
    /// Whether every person must have a TOTP second factor to sign in.
    public let requireSecondFactor: Bool
    /// How long a person stays signed in (refreshes included).
    public let sessionLifetime: Duration

    /// The throttle's namespace: no tenant id can be it (tenant ids start with a letter or digit).
    static let throttleRealm = "@operators"
    /// How long a code is good.
    public static let codeLifetime: TimeInterval = 60

    public init(
        operators: any OperatorStore, cache: any Cache, hasher: PasswordHasher = PasswordHasher(),
        clock: WallClock = .system, requireSecondFactor: Bool = false, sessionLifetime: Duration = .seconds(12 * 3600),
        throttlePolicy: LoginThrottle.Policy = .init()
    ) {
        self.operators = operators
        self.cache = cache
        self.throttle = LoginThrottle(cache: cache, policy: throttlePolicy) {
            Int64(clock.now().timeIntervalSince1970 * 1000)
        }
        self.hasher = hasher
        self.clock = clock
        self.requireSecondFactor = requireSecondFactor
        self.sessionLifetime = sessionLifetime
    }

    /// Checks `request`: a built-in client, its redirect URI, `response_type=code`, an S256
    /// challenge, a bounded `state`.
    public func validate(_ request: OperatorAuthorizationRequest, issuer: String) throws -> OperatorRealmClient {
        guard let client = OperatorRealmClient.named(request.clientID) else {
            throw OperatorAuthorizationError.page("unknown client_id")
        }
        guard let redirectURI = request.redirectURI, client.accepts(redirectURI: redirectURI, issuer: issuer) else {
            throw OperatorAuthorizationError.page("redirect_uri is not one of this client's")
        }
        let refuse = { (code: String, description: String) in
            OperatorAuthorizationError.redirect(
                AuthorizationServer.redirect(
                    redirectURI,
                    ["error": code, "error_description": description, "state": request.state, "iss": issuer]))
        }
        guard (request.state?.unicodeScalars.count ?? 0) <= 512 else { throw refuse("invalid_request", "state is too long") }
        guard request.responseType == "code" else {
            throw refuse("unsupported_response_type", "the operator realm answers response_type=code")
        }
        guard request.codeChallengeMethod == "S256", let challenge = request.codeChallenge,
            PKCE.isValidChallenge(challenge)
        else { throw refuse("invalid_request", "PKCE is required: code_challenge with code_challenge_method=S256") }
        return client
    }

    /// Checks the form's credentials for a validated `request`.
    public func signIn(
        _ request: OperatorAuthorizationRequest, username: String, password: String, code: String?, address: String?,
        issuer: String
    ) async throws -> OperatorSignInOutcome {
        let client = try validate(request, issuer: issuer)
        let person: Operator, method: String
        switch try await authenticate(username: username, password: password, code: code, address: address) {
        case .person(let found, let how): (person, method) = (found, how)
        case .refused(let outcome): return outcome
        }
        let now = clock.now()
        let issued = Base64URL.random(byteCount: 32)
        try await operators.storeGrant(
            OperatorGrant(
                kind: .code, hash: ClientSecret.hash(issued), operatorID: person.id, clientID: client.id,
                redirectURI: request.redirectURI, codeChallenge: request.codeChallenge, method: method,
                expiresAt: now.addingTimeInterval(Self.codeLifetime), sessionExpiresAt: sessionEnd(from: now),
                sessionID: OperatorAuthenticator.newSessionID()),
            now: now)
        return .redirect(
            AuthorizationServer.redirect(
                request.redirectURI ?? "", ["code": issued, "state": request.state, "iss": issuer]))
    }

    /// The end of a sign-in made at `now`.
    func sessionEnd(from now: Date) -> Date {
        now.addingTimeInterval(Double(sessionLifetime.wholeMilliseconds) / 1000)
    }

    /// What a credential check found: a person and how they proved it, or the refusal.
    enum Authentication {
        case person(Operator, method: String)
        case refused(OperatorSignInOutcome)
    }

    /// Checks a person's name, password and (when enrolled or required) one-time code under
    /// the throttle; the same answer for an unknown name, a wrong password, a service account
    /// and a disabled operator, after the same scrypt work.
    func authenticate(username: String, password: String, code: String?, address: String?) async throws
        -> Authentication
    {
        let name = username.lowercased()
        switch await throttle.check(tenantID: Self.throttleRealm, username: name, address: address) {
        case .throttled(let retryAfter): return .refused(.throttled(retryAfter: retryAfter))
        case .proceed(let slowdown): if slowdown > .zero { try await Task.sleep(for: slowdown) }
        }
        let found =
            OperatorName.isValid(name) && password.utf8.count <= 1024
            ? try await operators.findOperator(named: name) : nil
        let person = found.flatMap { $0.kind == .person && !$0.disabled ? $0 : nil }
        let hasher = self.hasher
        // scrypt runs on NIO's blocking pool, never on the cooperative pool serving requests;
        // an unknown name costs the same work (no timing oracle).
        let passwordOK: Bool = try await NIOThreadPool.singleton.runIfActive {
            guard let hash = person?.passwordHash else {
                hasher.dummyVerify(password)
                return false
            }
            return hasher.verify(password, against: hash)
        }
        guard passwordOK, let person else {
            await throttle.recordFailure(tenantID: Self.throttleRealm, username: name, address: address)
            return .refused(.failed)
        }
        var method = "password"
        if let secret = try await operators.totpSecret(operatorID: person.id), let totp = TOTP(base32: secret.plaintext)
        {
            guard let code, !code.isEmpty else { return .refused(.codeRequired) }
            guard let step = totp.matchingStep(code, at: clock.now()),
                try await cache.setIfAbsent(
                    "operator:totp-used:\(person.id):\(step)", [1], ttl: .seconds(TOTP.period * (2 * TOTP.drift + 2)))
            else {
                await throttle.recordFailure(tenantID: Self.throttleRealm, username: name, address: address)
                return .refused(.codeFailed)
            }
            method = "password+totp"
        } else if requireSecondFactor {
            return .refused(.secondFactorNotEnrolled)
        }
        await throttle.recordSuccess(tenantID: Self.throttleRealm, username: name, address: address)
        return .person(person, method: method)
    }
}
