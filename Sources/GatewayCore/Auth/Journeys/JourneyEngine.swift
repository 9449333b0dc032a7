import Foundation
import NIOPosix

/// Runs journeys for first-party clients (the same restriction as the authorization challenge
/// endpoint): start, then one step per call, each answering the next screen. Built so far:
/// signing in with a username, an e-mail address or a phone number and a password, or with a
/// code sent by e-mail or SMS (where the tenant's factors name `email-code` or `sms-code`),
/// then the authenticator app's code when the account has one; signing up with a password
/// and the identifiers the tenant names, each e-mail address and phone number verified by a
/// code the courier sends before the account exists (``runsSignUp(_:)``). Screens offer only
/// the actions the engine runs (``offered(_:settings:)``).
public struct JourneyEngine: Sendable {
    /// How long a journey lives from its start.
    public static let lifetime: Duration = .seconds(600)
    /// Sign-ups a tenant takes in a day.
    public static let signUpsPerTenantPerDay = 10_000

    /// Whether the engine runs sign-up for a tenant with `settings`: the tenant lets people sign
    /// up with a password, and verifies every e-mail address and phone number it asks for (with
    /// a courier to send the codes). An address or a number is never taken before a code has
    /// verified it: the gateway trusts a user's e-mail (linking an identity provider's account
    /// by a verified e-mail) and signs people in by their number, so an unverified one would let
    /// anyone claim someone else's.
    public func runsSignUp(_ settings: JourneySettings) -> Bool {
        let held = Set(settings.identifiers.compactMap { JourneySettings.Channel(rawValue: $0.rawValue) })
        return settings.signUp && (settings.factors.contains(.password) || runsPasskeys(settings))
            && Set(settings.verify) == held
            && (held.isEmpty || courier != nil)
    }

    /// Whether the engine runs recovery for `settings`: the tenant names recovery channels, a
    /// password is a factor, and a courier sends the codes.
    public func runsRecovery(_ settings: JourneySettings) -> Bool {
        !settings.recovery.isEmpty && settings.factors.contains(.password) && courier != nil
    }

    /// The actions the engine runs for `settings`; screens drop the others.
    func runs(_ settings: JourneySettings) -> Set<JourneyScreen.Action> {
        var actions: Set<JourneyScreen.Action> = [.submit, .back]
        if runsSignUp(settings) { actions.formUnion([.signUp, .resend]) }
        if runsRecovery(settings) { actions.formUnion([.forgotPassword, .resend]) }
        if courier != nil, settings.factors.contains(.smsCode) || settings.factors.contains(.emailCode) {
            actions.insert(.resend)
        }
        if runsPasskeys(settings) { actions.insert(.skip) }
        return actions
    }

    let auth: AuthorizationServer
    let cache: any Cache
    let clock: WallClock
    let courier: JourneyCourier?
    /// Passkey ceremonies (issue 64); nil: journeys offer no passkey.
    let passkeys: PasskeyCeremonies?
    /// Where passkey step-ups are recorded (nil: not recorded).
    let audit: (any AuditTrail)?

    /// - Parameters:
    ///   - courier: sends the codes; nil: no journey needs one (username sign-up only).
    ///   - passkeys: the passkey ceremonies; nil: no passkeys.
    public init(
        auth: AuthorizationServer, cache: any Cache, clock: WallClock, courier: JourneyCourier? = nil,
        passkeys: PasskeyCeremonies? = nil, audit: (any AuditTrail)? = nil
    ) {
        self.audit = audit
        self.passkeys = passkeys
        self.auth = auth
        self.cache = cache
        self.clock = clock
        self.courier = courier
    }

    /// Starts a journey: the client must be first-party with the code grant and not bound to
    /// DPoP, PKCE S256 is required, the scope is what the client may hold, the redirect URI is
    /// registered (or the client's only one). Throws ``OAuthError`` for a client or request the
    /// rules refuse, ``JourneyError/kindNotOffered(_:)`` for a kind not run yet.
    /// - Parameter party: the tenant's relying party, for passkeys (nil: none offered).
    public func start(
        _ request: JourneyStart, tenantID: String, settings: JourneySettings, party: JourneyParty? = nil
    ) async throws -> (journey: Journey, screen: JourneyScreen) {
        let client = try await auth.authenticateClient(tenantID: tenantID, clientID: request.clientID, secret: nil)
        guard client.isFirstParty, client.allows(grantType: "authorization_code") else {
            throw OAuthError.unauthorizedClient("journeys are for the tenant's first-party apps with the code grant")
        }
        guard !client.dpopBound else {
            throw OAuthError.unauthorizedClient(
                "this client is bound to DPoP: sign in through the authorization challenge endpoint")
        }
        let challenge = try AuthorizationServer.checkPKCE(
            challenge: request.codeChallenge, method: request.codeChallengeMethod)
        let granted = try AuthorizationServer.grantedScope(request.scope, client: client)
        let redirectURI: String
        if let given = request.redirectURI {
            guard client.acceptsRedirect(given) else {
                throw OAuthError.invalidRequest("redirectUri is not registered for this client")
            }
            redirectURI = given
        } else {
            guard client.redirectURIs.count == 1 else {
                throw OAuthError.invalidRequest("redirectUri is required: the client has several")
            }
            redirectURI = client.redirectURIs[0]
        }
        switch request.kind {
        case .signIn: break
        case .signUp:
            // Without a password, the account's passkey needs the relying party.
            guard runsSignUp(settings), settings.factors.contains(.password) || party != nil else {
                throw JourneyError.kindNotOffered(request.kind)
            }
        case .recovery: guard runsRecovery(settings) else { throw JourneyError.kindNotOffered(request.kind) }
        }
        let hint = request.loginHint.flatMap {
            $0.isEmpty || $0.count > 200 || ControlCharacters.held(in: $0) ? nil : $0
        }
        var journey = Journey(
            id: Base64URL.random(byteCount: 32), tenantID: tenantID, clientID: client.clientID, kind: request.kind,
            step: (request.kind == .signUp ? JourneyStep.register : request.kind == .recovery ? .recover : .identify)
                .rawValue, codeChallenge: challenge, scope: granted, nonce: request.nonce,
            redirectURI: redirectURI, state: request.state, locale: request.locale, identifier: hint,
            authSession: nil,
            expiresAt: clock.now().addingTimeInterval(Double(Self.lifetime.components.seconds)))
        let asked = (request.acrValues ?? "").split(separator: " ").prefix(10).map(String.init)
        if !asked.isEmpty { (journey.acrValues, journey.acrDemands) = (asked, settings.demands(of: asked)) }
        if runsPasskeys(settings) { journey.party = party }
        if let step = journey.currentStep {
            journey.passkeyPrompt = try await passkeyPrompt(for: step, journey: journey, settings: settings)
        }
        try await save(journey)
        guard let screen = screen(of: journey, settings: settings) else { throw JourneyError.notFound }
        return (journey, screen)
    }

    /// The journey `id` of the tenant, in flight; nil when unknown, finished or expired.
    public func journey(id: String, tenantID: String) async throws -> Journey? {
        guard id.utf8.count <= 64, let bytes = try await cache.get(Self.key(tenantID, id)),
            let journey = try? JSONDecoder().decode(Journey.self, from: Data(bytes)), journey.tenantID == tenantID,
            journey.expiresAt > clock.now()
        else { return nil }
        return journey
    }

    /// The screen the journey stands at (what the hosted page shows when opened).
    public func screen(of journey: Journey, settings: JourneySettings) -> JourneyScreen? {
        guard let step = journey.currentStep else { return nil }
        let screen = withPasskeyOptions(offered(step.screen(settings), settings: settings), journey: journey)
        if step == .code, let target = Self.codeTarget(of: journey) { return Self.sent(screen, to: target) }
        guard let typed = journey.identifier else { return screen }
        switch step {
        case .identify: return screen.filled(["identifier": typed])
        case .register: return screen.filled(["username": typed])
        case .recover: return screen.filled(["identifier": typed])
        default: return screen
        }
    }

    /// One step: `action` on the journey's current screen with the fields' `values`, from the
    /// app (`onHostedPage` false: its code is redeemed without a redirect URI, like the
    /// authorization challenge endpoint's) or from the hosted page (the code is bound to the
    /// journey's redirect URI). Throws ``JourneyError/notFound`` for a journey unknown,
    /// finished or expired.
    public func advance(
        id: String, tenantID: String, settings: JourneySettings, action: String, values: [String: String],
        address: String?, onHostedPage: Bool = false
    ) async throws -> JourneyOutcome {
        guard let journey = try await journey(id: id, tenantID: tenantID) else { throw JourneyError.notFound }
        return try await advance(
            journey, settings: settings, action: action, values: values, address: address, onHostedPage: onHostedPage)
    }

    /// One step of `loaded`, a journey the caller has just read with ``journey(id:tenantID:)``
    /// (the handlers need it for its language and redirect URI; read once per request).
    public func advance(
        _ loaded: Journey, settings: JourneySettings, action: String, values: [String: String], address: String?,
        onHostedPage: Bool = false
    ) async throws -> JourneyOutcome {
        var journey = loaded
        guard let step = journey.currentStep else { throw JourneyError.notFound }
        let screen = offered(step.screen(settings), settings: settings)
        guard let chosen = JourneyScreen.Action(rawValue: action), screen.actions.contains(chosen) else {
            return .refused(screen.filled(values).with([JourneyScreen.Message(key: "journey.error.action")]))
        }
        switch (step, chosen) {
        case (.identify, .submit) where !(values["credential"] ?? "").isEmpty:
            return try await signInWithPasskey(&journey, values["credential"] ?? "", settings: settings, onHostedPage: onHostedPage)
        case (.createPasskey, .submit):
            return try await createPasskey(
                &journey, values["credential"] ?? "", settings: settings, address: address, onHostedPage: onHostedPage)
        case (.createPasskey, .skip):
            return try await skipPasskey(journey, onHostedPage: onHostedPage)
        case (.passkey, .submit):
            return try await stepUpWithPasskey(
                &journey, values["credential"] ?? "", settings: settings, address: address, onHostedPage: onHostedPage)
        case (.passkey, .back):
            (journey.signedInSubject, journey.amr, journey.identifier) = (nil, nil, nil)
            return try await move(&journey, to: .identify, settings: settings)
        case (.identify, .submit):
            let identifier = Self.typedIdentifier(values["identifier"] ?? "", settings: settings)
            guard !identifier.isEmpty, identifier.count <= 200, !ControlCharacters.held(in: identifier) else {
                return .refused(
                    screen.filled(values).with([
                        JourneyScreen.Message(field: "identifier", key: "journey.error.identifier")
                    ]))
            }
            if Self.looksLikePhone(identifier, settings: settings),
                identifier.range(of: JourneyStep.phonePattern, options: .regularExpression) == nil
            {
                return .refused(
                    screen.filled(values).with([JourneyScreen.Message(field: "identifier", key: "journey.error.phone")]))
            }
            journey.identifier = identifier
            if let channel = codeSignIn(for: identifier, settings: settings) {
                return try await sendSignInCode(
                    &journey, channel: channel, settings: settings, address: address, screen: screen.filled(values))
            }
            return try await move(&journey, to: .password, settings: settings)
        case (.password, .back), (.totp, .back), (.register, .back):
            journey.authSession = nil
            if journey.kind == .recovery { journey.kind = .signIn }
            return try await move(&journey, to: .identify, settings: settings)
        case (.identify, .signUp):
            let typed = (values["identifier"] ?? "").trimmingCharacters(in: .whitespaces)
            journey.identifier = typed.isEmpty || LocalUser.usernameProblem(typed) != nil ? nil : typed
            return try await move(&journey, to: .register, settings: settings)
        case (.register, .submit):
            return try await signUp(
                &journey, values, screen: screen, settings: settings, address: address, onHostedPage: onHostedPage)
        case (.identify, .forgotPassword), (.password, .forgotPassword):
            let typed = (values["identifier"] ?? journey.identifier ?? "").trimmingCharacters(in: .whitespaces)
            journey.identifier = typed.isEmpty || typed.count > 200 || ControlCharacters.held(in: typed) ? nil : typed
            journey.kind = .recovery
            journey.authSession = nil
            return try await move(&journey, to: .recover, settings: settings)
        case (.recover, .submit):
            return try await startRecovery(
                &journey, values["identifier"] ?? "", screen: screen.filled(values), settings: settings,
                address: address)
        case (.recover, .back):
            journey.kind = .signIn
            return try await move(&journey, to: .identify, settings: settings)
        case (.newPassword, .submit):
            return try await setNewPassword(
                &journey, values["password"] ?? "", screen: screen, address: address, onHostedPage: onHostedPage)
        case (.code, .submit) where journey.kind == .recovery:
            return try await checkRecoveryCode(&journey, values["code"] ?? "", screen: screen, settings: settings)
        case (.code, .submit):
            guard journey.pending != nil else {
                return try await checkSignInCode(
                    &journey, values["code"] ?? "", screen: screen, settings: settings, address: address,
                    onHostedPage: onHostedPage)
            }
            return try await verifySignUpCode(
                &journey, values["code"] ?? "", screen: screen, settings: settings, address: address,
                onHostedPage: onHostedPage)
        case (.code, .resend):
            return try await resend(&journey, screen: screen, settings: settings, address: address)
        case (.code, .back):
            let back: JourneyStep = journey.pending != nil ? .register : journey.kind == .recovery ? .recover : .identify
            journey.pending = nil
            return try await move(&journey, to: back, settings: settings)
        case (.password, .submit):
            return try await password(
                &journey, values["password"] ?? "", settings: settings, address: address, onHostedPage: onHostedPage)
        case (.totp, .submit):
            return try await secondFactor(
                journey, values["code"] ?? "", settings: settings, address: address, onHostedPage: onHostedPage)
        default:
            // Only the actions in ``runs`` reach here, and each is handled above.
            return .refused(screen.with([JourneyScreen.Message(key: "journey.error.action")]))
        }
    }

    /// `screen` with only the actions the engine runs for `settings`.
    func offered(_ screen: JourneyScreen, settings: JourneySettings) -> JourneyScreen {
        var copy = screen
        let runs = runs(settings)
        copy.actions = screen.actions.filter(runs.contains)
        return copy
    }

    func move(_ journey: inout Journey, to step: JourneyStep, settings: JourneySettings) async throws
        -> JourneyOutcome
    {
        journey.step = step.rawValue
        journey.passkeyPrompt = try await passkeyPrompt(for: step, journey: journey, settings: settings)
        try await save(journey)
        guard let screen = screen(of: journey, settings: settings) else { throw JourneyError.notFound }
        return .screen(screen)
    }

    private func password(
        _ journey: inout Journey, _ password: String, settings: JourneySettings, address: String?,
        onHostedPage: Bool
    ) async throws -> JourneyOutcome {
        let screen = offered(JourneyStep.password.screen(settings), settings: settings)
        guard !password.isEmpty, password.utf8.count <= 1024, let identifier = journey.identifier else {
            return .refused(screen.with([JourneyScreen.Message(field: "password", key: "journey.error.password")]))
        }
        let username = try await username(for: identifier, tenantID: journey.tenantID, settings: settings)
        switch try await auth.authenticate(
            tenantID: journey.tenantID, username: username, password: password, address: address)
        {
        case .failed:
            return .refused(screen.with([JourneyScreen.Message(key: "journey.error.credentials")]))
        case .throttled(let retryAfter):
            return throttled(screen, retryAfter)
        case .signedIn(let user):
            journey.amr = (journey.amr ?? []) + ["pwd"]
            return try await signedIn(&journey, user: user, settings: settings, onHostedPage: onHostedPage)
        }
    }

    /// A first factor passed for `user`: the authenticator app's code next when the account has
    /// one, else signed in.
    func signedIn(_ journey: inout Journey, user: LocalUser, settings: JourneySettings, onHostedPage: Bool)
        async throws -> JourneyOutcome
    {
        guard user.totpSecret == nil else {
            let signIn = PendingSignIn(
                tenantID: journey.tenantID, clientID: journey.clientID, username: user.username,
                redirectURI: nil, scope: journey.scope, codeChallenge: journey.codeChallenge,
                nonce: journey.nonce, binding: .journey(journey.id))
            journey.authSession = try await auth.pending.start(signIn)
            return try await move(&journey, to: .totp, settings: settings)
        }
        return try await finishOfferingPasskey(&journey, user: user, settings: settings, onHostedPage: onHostedPage)
    }

    private func secondFactor(
        _ journey: Journey, _ code: String, settings: JourneySettings, address: String?, onHostedPage: Bool
    ) async throws -> JourneyOutcome {
        let screen = offered(JourneyStep.totp.screen(settings), settings: settings)
        guard let authSession = journey.authSession else { throw JourneyError.notFound }
        do {
            let signIn = try await auth.pendingSignIn(
                authSession, tenantID: journey.tenantID, clientID: journey.clientID, binding: .journey(journey.id))
            switch try await auth.verifySecondFactor(
                authSession: authSession, signIn: signIn, code: code.count <= 16 ? code : "", address: address)
            {
            case .codeRequired, .failed:
                return .refused(screen.with([JourneyScreen.Message(field: "code", key: "journey.error.totp")]))
            case .throttled(let retryAfter):
                return throttled(screen, retryAfter)
            case .signedIn(let user, _):
                var journey = journey
                journey.amr = (journey.amr ?? []) + ["otp"]
                guard journey.kind != .recovery else {
                    // Recovering: the second factor passed, the new password comes next.
                    var recovering = journey
                    recovering.recovering = user.username
                    recovering.authSession = nil
                    return try await move(&recovering, to: .newPassword, settings: settings)
                }
                return try await finishOfferingPasskey(&journey, user: user, settings: settings, onHostedPage: onHostedPage)
            }
        } catch let error as OAuthError where error.code == "invalid_session" {
            // Five wrong codes, or the account changed: the journey ends with its sign-in.
            _ = try await cache.take(Self.key(journey.tenantID, journey.id))
            throw JourneyError.notFound
        }
    }

    /// The account an identifier names: an e-mail address (with `@`, when the tenant's people
    /// sign in with one) or a phone number (with `+`, likewise) is the username of the one user
    /// holding it, ignoring case; anything else is a username, where the tenant's people sign
    /// in with one. An address or a number no user or several users hold stays as typed, and
    /// then fails like an unknown username, after the same work. Without usernames, the typed
    /// value is never taken for one: an account signed up by e-mail has its first address as
    /// username, and an address it changed or removed in My account must stop signing it in.
    private func username(for identifier: String, tenantID: String, settings: JourneySettings) async throws -> String {
        if let holder = try await holder(of: identifier, tenantID: tenantID, settings: settings) { return holder.username }
        return settings.identifiers.contains(.username) ? identifier : ""
    }

    /// The one user holding the e-mail address or phone number `identifier` (nil: none, or
    /// several, or a username).
    func holder(of identifier: String, tenantID: String, settings: JourneySettings) async throws -> LocalUser? {
        let holders: [LocalUser]
        if settings.identifiers.contains(.email), identifier.contains("@") {
            holders = try await auth.users.users(tenantID: tenantID, email: identifier, limit: 2)
        } else if Self.looksLikePhone(identifier, settings: settings) {
            holders = try await auth.users.users(tenantID: tenantID, phone: identifier, limit: 2)
        } else {
            return nil
        }
        return holders.count == 1 ? holders[0] : nil
    }

    /// What the person typed as an identifier, trimmed; a phone number (with `+`, or the tenant's
    /// only identifier) without the spaces, hyphens and brackets people write it with.
    static func typedIdentifier(_ typed: String, settings: JourneySettings) -> String {
        let trimmed = typed.trimmingCharacters(in: .whitespaces)
        guard looksLikePhone(trimmed, settings: settings) else { return trimmed }
        return JourneyStep.phoneDigits(trimmed)
    }

    /// Whether `identifier` is meant as a phone number: the tenant's people sign in with one,
    /// and it starts with `+` (or a phone number is their only identifier).
    static func looksLikePhone(_ identifier: String, settings: JourneySettings) -> Bool {
        settings.identifiers.contains(.phone) && (identifier.hasPrefix("+") || settings.identifiers == [.phone])
    }

    /// `screen` held back for `retryAfter`, its message (`key`) saying the same whole seconds as
    /// the `Retry-After` header the handlers send.
    func throttled(
        _ screen: JourneyScreen, _ retryAfter: Duration, key: String = "journey.error.throttled"
    ) -> JourneyOutcome {
        let seconds = String(BrowserSignIn.wholeSeconds(retryAfter))
        return .throttled(screen.with([JourneyScreen.Message(key: key, values: ["seconds": seconds])]), retryAfter: retryAfter)
    }

    /// Writes a signed-up user with its audit record (the user as actor); false when the
    /// username is taken meanwhile.
    func create(_ user: LocalUser, journey: Journey, address: String?) async throws -> Bool {
        do {
            try await auth.users.addUsers([user], trail: signUpTrail(journey, address: address))
            return true
        } catch AuthStoreError.alreadyExists {
            return false
        }
    }

    /// The audit record of a sign-up through `journey`, the new user as actor.
    func signUpTrail(_ journey: Journey, address: String?) -> @Sendable (LocalUser) -> AuditDraft {
        let (now, clientID) = (clock.now(), journey.clientID)
        return { stored in
            var draft = UserTrail.draft(
                nil, stored, actor: .user(stored, method: "sign-up", clientID: clientID, address: address),
                requestID: nil, verb: .create, time: now, outcome: .created)
            draft.note = AuditNote(action: "sign-up", summary: "signed up through \(clientID)")
            return draft
        }
    }

    /// Signed in: the journey is taken (used once, by whichever replica gets there first) and
    /// its code issued.
    func finish(_ journey: Journey, user: LocalUser, onHostedPage: Bool) async throws -> JourneyOutcome {
        guard let client = try await auth.client(tenantID: journey.tenantID, clientID: journey.clientID),
            try await cache.take(Self.key(journey.tenantID, journey.id)) != nil
        else { throw JourneyError.notFound }
        let code = try await auth.issueCode(
            client: client, redirectURI: onHostedPage ? journey.redirectURI : nil,
            codeChallenge: journey.codeChallenge, user: user,
            scope: journey.scope, nonce: journey.nonce, dpopJKT: nil, now: clock.now(), amr: journey.amr,
            acr: JourneySettings.acr(amr: journey.amr ?? [], asked: journey.acrValues ?? [], demands: journey.acrDemands ?? [:]))
        // A browser that signed in on the hosted page keeps a single sign-on session; an app does not.
        guard onHostedPage, let sessions = auth.browserSessions else { return .authorizationCode(code) }
        let session = try await sessions.start(tenantID: journey.tenantID, subject: user.subject, amr: journey.amr ?? [])
        return .signedIn(code: code, session: session)
    }

    func save(_ journey: Journey) async throws {
        let left = journey.expiresAt.timeIntervalSince(clock.now())
        guard left > 0 else { throw JourneyError.notFound }
        try await cache.set(
            Self.key(journey.tenantID, journey.id), Array(try JSONEncoder().encode(journey)),
            ttl: .milliseconds(Int64(left * 1000)))
    }

    static func key(_ tenantID: String, _ id: String) -> String { "journey:\(tenantID):\(CacheKey.escape(id))" }
}
