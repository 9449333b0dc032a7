import Crypto
import Foundation

/// What a client sent to the backchannel authentication endpoint (CIBA §7.1), as received.
public struct BackchannelAuthenticationForm: Sendable, Equatable {
    public var scope: String?
    public var loginHint: String?
    public var idTokenHint: String?
    public var loginHintToken: String?
    public var bindingMessage: String?
    public var userCode: String?
    public var requestedExpiry: String?
    public var acrValues: String?
    public var clientNotificationToken: String?

    public init(
        scope: String?, loginHint: String? = nil, idTokenHint: String? = nil, loginHintToken: String? = nil,
        bindingMessage: String? = nil, userCode: String? = nil, requestedExpiry: String? = nil,
        acrValues: String? = nil, clientNotificationToken: String? = nil
    ) {
        self.scope = scope
        self.loginHint = loginHint
        self.idTokenHint = idTokenHint
        self.loginHintToken = loginHintToken
        self.bindingMessage = bindingMessage
        self.userCode = userCode
        self.requestedExpiry = requestedExpiry
        self.acrValues = acrValues
        self.clientNotificationToken = clientNotificationToken
    }
}

/// Why the host app's answer to a sign-in request was refused.
public enum BackchannelError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No pending request of this user has that id (another user's answers the same).
    case notFound
    /// The request was answered already (on this device or another).
    case alreadyAnswered
    /// The request asks for a step-up (`acr_values`), or the host app's sign-in is older than
    /// the tenant allows: the user's TOTP code or password must come with the approval.
    case stepUpRequired(String)
    /// The step-up code, password or passkey was wrong (or held back by the sign-in throttle).
    case stepUpFailed
    /// The passkey's sign counter went back (a possible clone, WebAuthn §6.1.1): refused like
    /// ``stepUpFailed``, and recorded in the audit trail by the caller.
    case passkeyCounterWentBack(stored: UInt32, received: UInt32)

    public var description: String {
        switch self {
        case .notFound: "no pending sign-in request of this user has that id"
        case .alreadyAnswered: "the sign-in request was answered already"
        case .stepUpRequired(let why): why
        case .stepUpFailed, .passkeyCounterWentBack: "the code, password or passkey is not right"
        }
    }
}

extension AuthorizationServer {
    /// The tenant's backchannel requests, shared by replicas through the cache.
    public var backchannel: BackchannelRequests { BackchannelRequests(cache: cache, clock: clock, sealer: sealer) }

    /// A backchannel authentication request (CIBA §7) from an authenticated `client`: checked
    /// in the order of the spec's error table, then admitted for the user the hint names. A
    /// hint that names nobody (or a disabled user) is admitted like any other and never
    /// answered, unless the tenant's `settings` reveal unknown users (then `unknown_user_id`).
    /// - Returns: the admitted request (`auth_req_id`, expiry, interval).
    /// - Throws: ``OAuthError`` with the spec's codes and statuses.
    public func authenticateBackchannel(
        _ form: BackchannelAuthenticationForm, client: OAuthClient, issuer: String, address: String?,
        hintSubject: String? = nil, settings: CIBASettings = CIBASettings(),
        pollInterval: Int = BackchannelRules.pollInterval
    ) async throws -> BackchannelRequest {
        guard client.allows(grantType: BackchannelRules.grantType), let mode = client.backchannelMode else {
            throw OAuthError.unauthorizedClient("this client is not registered for backchannel authentication")
        }
        let asked = (form.scope ?? "").split(separator: " ").map(String.init)
        guard asked.contains("openid") else { throw OAuthError.invalidScope("scope must include openid") }
        // What the approval will grant: never the host app's sign-in requests (a relying party
        // that could approve them would sign itself in).
        let scopes = try client.grantedScopes(requested: asked, origin: .backchannel)
        let hints = [form.loginHint, form.idTokenHint, form.loginHintToken].compactMap {
            $0?.isEmpty == false ? $0 : nil
        }
        guard hints.count == 1 else {
            throw OAuthError.invalidRequest("exactly one of login_hint, id_token_hint and login_hint_token is required")
        }
        guard hints[0].utf8.count <= BackchannelRules.hintMaxLength else {
            throw OAuthError.invalidRequest("the hint is longer than \(BackchannelRules.hintMaxLength) bytes")
        }
        let acrValues = (form.acrValues ?? "").split(separator: " ").map(String.init)
        guard acrValues.allSatisfy(BackchannelRules.supportedACRValues.contains) else {
            throw OAuthError.invalidRequest(
                "acr_values are \(BackchannelRules.supportedACRValues.joined(separator: " or "))")
        }
        var expiry = BackchannelRules.defaultExpirySeconds
        if let requested = form.requestedExpiry {
            guard let seconds = Int(requested), BackchannelRules.expiryRange.contains(seconds) else {
                throw OAuthError.invalidRequest(
                    "requested_expiry is \(BackchannelRules.expiryRange.lowerBound)-\(BackchannelRules.expiryRange.upperBound) seconds"
                )
            }
            expiry = seconds
        }
        if mode == .ping {
            guard let token = form.clientNotificationToken, !token.isEmpty,
                token.utf8.count <= BackchannelRules.notificationTokenMaxLength
            else {
                throw OAuthError.invalidRequest(
                    "client_notification_token is required in ping mode (at most \(BackchannelRules.notificationTokenMaxLength) bytes)"
                )
            }
        }
        let user = try await backchannelUser(form, hintSubject: hintSubject, issuer: issuer, tenantID: client.tenantID)
        if user == nil, settings.revealUnknownUsers {
            throw OAuthError("unknown_user_id", "the hint names no user of this tenant")
        }
        if let message = form.bindingMessage, !BackchannelRules.isValidBindingMessage(message) {
            throw OAuthError(
                "invalid_binding_message",
                "binding_message is 1-\(BackchannelRules.bindingMessageMaxLength) letters, digits, spaces or -_.,:#/()")
        }
        if client.backchannelUserCodeRequired == true {
            guard let code = form.userCode, !code.isEmpty else {
                throw OAuthError("missing_user_code", "this client must send the user's user_code")
            }
            guard code.utf8.count <= BackchannelRules.userCodeMaxLength, let user,
                try await acceptsCode(code, of: user)
            else { throw OAuthError("invalid_user_code", "the user_code is not right") }
        }
        let now = clock.now()
        var request = BackchannelRequest(
            id: Base64URL.random(byteCount: 32), tenantID: client.tenantID, clientID: client.clientID,
            subject: user?.subject, scopes: scopes, bindingMessage: form.bindingMessage, acrValues: acrValues,
            address: address, requestedAt: now, expiresAt: now.addingTimeInterval(TimeInterval(expiry)),
            interval: pollInterval, mode: mode)
        if mode == .ping { request.notificationToken = form.clientNotificationToken }
        // A hint that named nobody is counted under its own digest, so it is limited like a user.
        let holder = user?.subject ?? "hint-" + Base64URL.sha256(hints[0])
        do {
            return try await backchannel.admit(request, holder: holder)
        } catch let refusal as BackchannelRequests.Refusal {
            throw OAuthError(
                "access_denied",
                refusal == .tooManyPending
                    ? "the user has too many sign-in requests waiting"
                    : "too many sign-in requests for this user; try later",
                status: 403)
        }
    }

    /// The user the request's hint names, or nil: `login_hint` is a username, an email held
    /// by one user, or a subject; `id_token_hint` an ID token this tenant issued (expired or
    /// not, OpenID Connect Core §3.1.2.1); `hintSubject` the subject the caller read from a
    /// `login_hint_token`. A disabled user is nobody.
    private func backchannelUser(
        _ form: BackchannelAuthenticationForm, hintSubject: String?, issuer: String, tenantID: String
    ) async throws -> LocalUser? {
        var found: LocalUser?
        if let hint = form.loginHint, !hint.isEmpty {
            // Every way is looked up whichever matches, so a hint that names nobody takes as long.
            let byName = try await users.user(tenantID: tenantID, username: hint)
            let byEmail = try await users.users(tenantID: tenantID, email: hint, limit: 2)
            let bySubject = try await users.user(tenantID: tenantID, subject: hint)
            found = byName ?? (byEmail.count == 1 ? byEmail[0] : nil) ?? bySubject
        }
        if let hint = form.idTokenHint, !hint.isEmpty {
            let claims: [String: JSONValue]
            do {
                claims = try await verifier.signedClaims(
                    hint, tenantID: tenantID, types: ["jwt"], algorithms: [.rs256, .es256]
                )
                .claims
            } catch {
                throw OAuthError.invalidRequest("id_token_hint is not an ID token this tenant issued")
            }
            guard claims["iss"]?.stringValue == issuer, let subject = claims["sub"]?.stringValue else {
                throw OAuthError.invalidRequest("id_token_hint is not an ID token this tenant issued")
            }
            found = try await users.user(tenantID: tenantID, subject: subject)
        }
        if let hintSubject {
            found = try await users.user(tenantID: tenantID, subject: hintSubject)
        }
        return found?.disabled == true ? nil : found
    }

    /// Whether `code` is the user's current TOTP code, used once (the step is remembered like
    /// a sign-in's), under the sign-in throttle.
    func acceptsCode(_ code: String, of user: LocalUser, address: String? = nil) async throws -> Bool {
        guard let secret = user.totpSecret, let totp = TOTP(base32: secret.plaintext) else { return false }
        if case .throttled = await throttle.check(tenantID: user.tenantID, username: user.username, address: address) {
            return false
        }
        guard let step = totp.matchingStep(code, at: clock.now()),
            try await cache.setIfAbsent(
                "oauth:totp-used:\(user.tenantID):\(user.subject):\(step)", [1],
                ttl: .seconds(TOTP.period * (2 * TOTP.drift + 2)))
        else {
            await throttle.recordFailure(tenantID: user.tenantID, username: user.username, address: address)
            return false
        }
        return true
    }

    /// The host app's answer for `subject` (CIBA's authentication device): approve or deny a
    /// pending request of that user. An approval needs the host app's sign-in to be recent
    /// (`authTime` within the tenant's ``CIBASettings/recentSignInSeconds``) or a step-up: the TOTP
    /// code (`totp`), the password, or a passkey answering the request's ceremony
    /// (``beginBackchannelPasskey(tenantID:subject:id:ceremonies:party:)``); a request whose
    /// `acr_values` ask for one needs it whatever the sign-in's age, and one that asks for a
    /// passkey takes nothing else. A passkey satisfies every class. Answered once, on any
    /// replica. Answers the request and the answer recorded.
    /// - Throws: ``BackchannelError``.
    public func answerBackchannel(
        tenantID: String, subject: String, id: String, approve: Bool, authTime: Date?, totp: String? = nil,
        password: String? = nil, passkey: BackchannelPasskeyAnswer? = nil, address: String? = nil,
        settings: CIBASettings = CIBASettings()
    ) async throws -> (request: BackchannelRequest, answer: BackchannelAnswer) {
        let now = clock.now()
        let request = try await pendingBackchannelRequest(tenantID: tenantID, subject: subject, id: id)
        var answer = BackchannelAnswer(approved: approve, at: now)
        if approve {
            let wantsPasskey = request.acrValues.contains(BackchannelRules.passkeyACR)
            let wantsTOTP = request.acrValues.contains(BackchannelRules.totpACR)
            let wantsStepUp = wantsPasskey || wantsTOTP || request.acrValues.contains(BackchannelRules.passwordACR)
            let recent = authTime.map {
                now.timeIntervalSince($0) <= TimeInterval(settings.recentSignInSeconds)
            }
            if let passkey {
                guard let user = try await users.user(tenantID: tenantID, subject: subject), !user.disabled else {
                    throw BackchannelError.stepUpFailed
                }
                let used = try await backchannelPasskey(passkey, tenantID: tenantID, subject: user.subject, id: id)
                answer.acr = wantsPasskey ? BackchannelRules.passkeyACR : request.acrValues.first
                answer.amr = used.amr
            } else if wantsPasskey {
                throw BackchannelError.stepUpRequired("this request asks for one of the user's passkeys")
            } else if let code = totp, !code.isEmpty {
                guard let user = try await users.user(tenantID: tenantID, subject: subject), !user.disabled,
                    try await acceptsCode(code, of: user, address: address)
                else { throw BackchannelError.stepUpFailed }
                answer.acr = wantsTOTP ? BackchannelRules.totpACR : request.acrValues.first
                answer.amr = ["otp"]
            } else if let password, !password.isEmpty, !wantsTOTP {
                guard let user = try await users.user(tenantID: tenantID, subject: subject),
                    case .signedIn = try await authenticate(
                        tenantID: tenantID, username: user.username, password: password, address: address)
                else { throw BackchannelError.stepUpFailed }
                answer.acr = wantsStepUp ? BackchannelRules.passwordACR : nil
                answer.amr = ["pwd"]
            } else if wantsTOTP {
                throw BackchannelError.stepUpRequired("this request asks for the user's TOTP code")
            } else if wantsStepUp {
                throw BackchannelError.stepUpRequired("this request asks for the user's password or TOTP code")
            } else if recent != true {
                throw BackchannelError.stepUpRequired(
                    "the sign-in on this device is older than \(settings.recentSignInSeconds) seconds: send the TOTP code or password"
                )
            }
        }
        guard try await backchannel.answer(request, answer) else { throw BackchannelError.alreadyAnswered }
        return (request, answer)
    }

    /// `urn:openid:params:grant-type:ciba` at the token endpoint (CIBA §10.1, §11): the tokens
    /// once the user approved, else `authorization_pending`, `slow_down`, `access_denied`,
    /// `expired_token`; `invalid_grant` for an id this client does not hold (or one redeemed).
    public func redeemBackchannel(
        authReqID: String?, client: OAuthClient, issuer: String, dpopJKT: String?
    ) async throws -> TokenResponse {
        guard client.allows(grantType: BackchannelRules.grantType) else {
            throw OAuthError.unauthorizedClient("this client is not registered for backchannel authentication")
        }
        guard let id = authReqID, !id.isEmpty else { throw OAuthError.invalidRequest("auth_req_id is required") }
        guard id.utf8.count <= 64, let request = try await backchannel.request(tenantID: client.tenantID, id: id),
            request.clientID == client.clientID
        else { throw OAuthError.invalidGrant("auth_req_id is unknown, expired long ago, or another client's") }
        if let answer = try await backchannel.answer(tenantID: client.tenantID, id: id) {
            guard answer.approved, let subject = request.subject else {
                throw OAuthError.accessDenied("the user denied the sign-in request")
            }
            guard try await backchannel.redeem(request) else {
                throw OAuthError.invalidGrant("auth_req_id was redeemed already")
            }
            return try await tokens.issueForBackchannel(
                issuer: issuer, client: client, request: request, subject: subject, answer: answer, dpopJKT: dpopJKT)
        }
        if request.expiresAt <= clock.now() {
            throw OAuthError("expired_token", "the sign-in request expired before the user answered")
        }
        if let interval = try await backchannel.poll(request) {
            throw OAuthError("slow_down", "poll at most every \(interval) seconds")
        }
        throw OAuthError("authorization_pending", "the user has not answered yet")
    }
}
