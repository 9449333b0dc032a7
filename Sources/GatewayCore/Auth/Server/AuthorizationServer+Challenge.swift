import Foundation

/// A request to the authorization challenge endpoint ("OAuth 2.0 for First-Party
/// Applications"): the first one carries the authorization parameters and the user's
/// username and password; a continuation carries `auth_session` and the one-time code.
public struct ChallengeRequest: Sendable {
    public var clientID: String?
    public var clientSecret: String?
    public var responseType: String?
    public var scope: String?
    public var codeChallenge: String?
    public var codeChallengeMethod: String?
    public var nonce: String?
    public var authSession: String?
    public var username: String?
    public var password: String?
    public var otp: String?
    /// The thumbprint of the request's verified DPoP proof, if it had one.
    public var dpopJKT: String?
    /// The caller's address (throttling).
    public var address: String?

    public init(
        clientID: String? = nil, clientSecret: String? = nil, responseType: String? = nil, scope: String? = nil,
        codeChallenge: String? = nil,
        codeChallengeMethod: String? = nil, nonce: String? = nil, authSession: String? = nil, username: String? = nil,
        password: String? = nil,
        otp: String? = nil, dpopJKT: String? = nil, address: String? = nil
    ) {
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.responseType = responseType
        self.scope = scope
        self.codeChallenge = codeChallenge
        self.codeChallengeMethod = codeChallengeMethod
        self.nonce = nonce
        self.authSession = authSession
        self.username = username
        self.password = password
        self.otp = otp
        self.dpopJKT = dpopJKT
        self.address = address
    }
}

/// The answer of the authorization challenge endpoint.
public enum ChallengeOutcome: Sendable, Equatable {
    /// Signed in: the code for the token endpoint (no `redirect_uri` there).
    case authorizationCode(String)
    /// `insufficient_authorization`: send `otp` with this `auth_session`.
    case otpRequired(authSession: String)
    /// Held back by the login throttle.
    case throttled(retryAfter: Duration)
}

extension AuthorizationServer {
    /// Runs one step of a first-party sign-in. Only clients registered `--first-party` may
    /// start one; PKCE (S256) is required; a DPoP proof on the first request binds the
    /// `auth_session` and the code to its key (later steps and the token request must prove
    /// the same key). Throws ``OAuthError`` (`invalid_request`, `invalid_client`,
    /// `unauthorized_client`, `unsupported_response_type`, `invalid_scope`,
    /// `invalid_session`, `access_denied`, `invalid_dpop_proof`).
    public func challenge(_ r: ChallengeRequest, tenantID: String) async throws -> ChallengeOutcome {
        let now = clock.now()
        if let authSession = r.authSession {
            return try await continueChallenge(r, authSession: authSession, tenantID: tenantID, now: now)
        }
        let client = try await authenticateClient(tenantID: tenantID, clientID: r.clientID, secret: r.clientSecret)
        guard client.isFirstParty else {
            throw OAuthError.unauthorizedClient(
                "this client is not registered as a first-party app (gatewayctl client update --first-party)")
        }
        guard client.allows(grantType: "authorization_code") else {
            throw OAuthError.unauthorizedClient("this client may not use the authorization_code grant")
        }
        if client.dpopBound, r.dpopJKT == nil {
            throw OAuthError.invalidDPoPProof("this client must present a DPoP proof")
        }
        guard r.responseType == "code" else {
            throw OAuthError("unsupported_response_type", "response_type must be code")
        }
        let codeChallenge = try Self.checkPKCE(challenge: r.codeChallenge, method: r.codeChallengeMethod)
        let scope = try Self.grantedScope(r.scope, client: client)
        guard let username = r.username, !username.isEmpty, let password = r.password, !password.isEmpty else {
            throw OAuthError.invalidRequest("username and password are required")
        }
        switch try await authenticate(tenantID: tenantID, username: username, password: password, address: r.address) {
        case .failed:
            throw OAuthError.accessDenied("incorrect username or password")
        case .throttled(let retryAfter):
            return .throttled(retryAfter: retryAfter)
        case .signedIn(let user):
            guard user.totpSecret == nil else {
                let signIn = PendingSignIn(
                    tenantID: tenantID, clientID: client.clientID, username: user.username, redirectURI: nil,
                    scope: scope,
                    codeChallenge: codeChallenge, nonce: r.nonce, binding: .challenge(dpopJKT: r.dpopJKT))
                return .otpRequired(authSession: try await pending.start(signIn))
            }
            return .authorizationCode(
                try await issueCode(
                    client: client, redirectURI: nil, codeChallenge: codeChallenge, user: user, scope: scope,
                    nonce: r.nonce, dpopJKT: r.dpopJKT, now: now, amr: ["pwd"]))
        }
    }

    private func continueChallenge(
        _ r: ChallengeRequest, authSession: String, tenantID: String, now: Date
    ) async throws -> ChallengeOutcome {
        let signIn = try await pendingSignIn(
            authSession, tenantID: tenantID, clientID: r.clientID, binding: .challenge(dpopJKT: r.dpopJKT))
        let client = try await authenticateClient(tenantID: tenantID, clientID: signIn.clientID, secret: r.clientSecret)
        switch try await verifySecondFactor(
            authSession: authSession, signIn: signIn, code: r.otp, address: r.address)
        {
        case .codeRequired:
            return .otpRequired(authSession: authSession)
        case .failed:
            throw OAuthError.accessDenied("the one-time code is incorrect")
        case .throttled(let retryAfter):
            return .throttled(retryAfter: retryAfter)
        case .signedIn(let user, let finished):
            return .authorizationCode(
                try await issueCode(
                    client: client, redirectURI: nil, codeChallenge: finished.codeChallenge, user: user,
                    scope: finished.scope,
                    nonce: finished.nonce, dpopJKT: r.dpopJKT, now: now, amr: ["pwd", "otp"]))
        }
    }
}
