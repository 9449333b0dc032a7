import Foundation
import NIOPosix

/// Runs journeys for first-party clients (the same restriction as the authorization challenge
/// endpoint): start, then one step per call, each answering the next screen. Built so far:
/// signing in with a username (or an e-mail address the tenant's users hold) and a password,
/// then the authenticator app's code when the account has one; signing up with a username and
/// a password where nothing needs verifying (``signUpRuns(_:)``), and with an e-mail address
/// verified by a code the courier sends (``emailSignUpRuns(_:)``). Screens offer only the
/// actions the engine runs (``offered(_:settings:)``).
public struct JourneyEngine: Sendable {
    /// How long a journey lives from its start.
    public static let lifetime: Duration = .seconds(600)
    /// Sign-ups a tenant takes in a day.
    public static let signUpsPerTenantPerDay = 10_000

    /// Whether the engine runs sign-up with a username alone for a tenant with `settings`: the
    /// tenant lets people sign up, with a username and a password, and asks nothing verified.
    /// An e-mail address or a phone number is never taken before a code has verified it: the
    /// gateway trusts a user's e-mail (linking an identity provider's account by a verified
    /// e-mail), so an unverified one would let anyone claim someone else's
    /// (``emailSignUpRuns(_:)``).
    public static func signUpRuns(_ settings: JourneySettings) -> Bool {
        settings.signUp && settings.identifiers == [.username] && settings.verify.isEmpty
            && settings.factors.contains(.password)
    }

    /// Whether the engine runs a sign-up with an e-mail address for `settings` (given a courier):
    /// the tenant lets people sign up with a password, e-mail is an identifier and verified, no
    /// phone is asked (SMS comes next).
    public static func emailSignUpRuns(_ settings: JourneySettings) -> Bool {
        settings.signUp && settings.factors.contains(.password) && settings.identifiers.contains(.email)
            && !settings.identifiers.contains(.phone) && settings.verify == [.email]
    }

    /// Whether this engine runs sign-up for `settings`.
    public func runsSignUp(_ settings: JourneySettings) -> Bool {
        Self.signUpRuns(settings) || (courier != nil && Self.emailSignUpRuns(settings))
    }

    /// The actions the engine runs for `settings`; screens drop the others (recovery comes next).
    func runs(_ settings: JourneySettings) -> Set<JourneyScreen.Action> {
        runsSignUp(settings) ? [.submit, .back, .signUp, .resend] : [.submit, .back]
    }

    private let auth: AuthorizationServer
    private let cache: any Cache
    private let clock: WallClock
    private let courier: JourneyCourier?

    /// - Parameter courier: sends the codes; nil: no journey needs one (username sign-up only).
    public init(auth: AuthorizationServer, cache: any Cache, clock: WallClock, courier: JourneyCourier? = nil) {
        self.auth = auth
        self.cache = cache
        self.clock = clock
        self.courier = courier
    }

    /// Starts a journey: the client must be first-party with the code grant and not bound to
    /// DPoP, PKCE S256 is required, the scope is what the client may hold, the redirect URI is
    /// registered (or the client's only one). Throws ``OAuthError`` for a client or request the
    /// rules refuse, ``JourneyError/kindNotOffered(_:)`` for a kind not run yet.
    public func start(
        _ request: JourneyStart, tenantID: String, settings: JourneySettings
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
        guard request.kind == .signIn || (request.kind == .signUp && runsSignUp(settings)) else {
            throw JourneyError.kindNotOffered(request.kind)
        }
        let hint = request.loginHint.flatMap {
            $0.isEmpty || $0.count > 200 || ControlCharacters.held(in: $0) ? nil : $0
        }
        let journey = Journey(
            id: Base64URL.random(byteCount: 32), tenantID: tenantID, clientID: client.clientID, kind: request.kind,
            step: (request.kind == .signUp ? JourneyStep.register : .identify).rawValue, codeChallenge: challenge, scope: granted, nonce: request.nonce,
            redirectURI: redirectURI, state: request.state, locale: request.locale, identifier: hint,
            authSession: nil,
            expiresAt: clock.now().addingTimeInterval(Double(Self.lifetime.components.seconds)))
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
        let screen = offered(step.screen(settings), settings: settings)
        if step == .code, let pending = journey.pending { return Self.sent(screen, to: pending.email) }
        guard let typed = journey.identifier else { return screen }
        switch step {
        case .identify: return screen.filled(["identifier": typed])
        case .register: return screen.filled(["username": typed])
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
        case (.identify, .submit):
            let identifier = (values["identifier"] ?? "").trimmingCharacters(in: .whitespaces)
            guard !identifier.isEmpty, identifier.count <= 200, !ControlCharacters.held(in: identifier) else {
                return .refused(
                    screen.filled(values).with([
                        JourneyScreen.Message(field: "identifier", key: "journey.error.identifier")
                    ]))
            }
            journey.identifier = identifier
            return try await move(&journey, to: .password, settings: settings)
        case (.password, .back), (.totp, .back), (.register, .back):
            journey.authSession = nil
            return try await move(&journey, to: .identify, settings: settings)
        case (.identify, .signUp):
            let typed = (values["identifier"] ?? "").trimmingCharacters(in: .whitespaces)
            journey.identifier = typed.isEmpty || LocalUser.usernameProblem(typed) != nil ? nil : typed
            return try await move(&journey, to: .register, settings: settings)
        case (.register, .submit):
            return try await signUp(
                &journey, values, screen: screen, settings: settings, address: address, onHostedPage: onHostedPage)
        case (.code, .submit):
            return try await verifyEmail(
                journey, values["code"] ?? "", screen: screen, address: address, onHostedPage: onHostedPage)
        case (.code, .resend):
            return try await resend(journey, screen: screen, settings: settings, address: address)
        case (.code, .back):
            journey.pending = nil
            return try await move(&journey, to: .register, settings: settings)
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

    private func move(_ journey: inout Journey, to step: JourneyStep, settings: JourneySettings) async throws
        -> JourneyOutcome
    {
        journey.step = step.rawValue
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
            guard user.totpSecret == nil else {
                let signIn = PendingSignIn(
                    tenantID: journey.tenantID, clientID: journey.clientID, username: user.username,
                    redirectURI: nil, scope: journey.scope, codeChallenge: journey.codeChallenge,
                    nonce: journey.nonce, binding: .journey(journey.id))
                journey.authSession = try await auth.pending.start(signIn)
                return try await move(&journey, to: .totp, settings: settings)
            }
            return try await finish(journey, user: user, onHostedPage: onHostedPage)
        }
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
                return try await finish(journey, user: user, onHostedPage: onHostedPage)
            }
        } catch let error as OAuthError where error.code == "invalid_session" {
            // Five wrong codes, or the account changed: the journey ends with its sign-in.
            _ = try await cache.take(Self.key(journey.tenantID, journey.id))
            throw JourneyError.notFound
        }
    }

    /// The account an identifier names: an e-mail address (with `@`, when the tenant's people
    /// sign in with one) is the username of the one user holding it, ignoring case; anything
    /// else is a username. An address no user or several users hold stays as typed, and then
    /// fails like an unknown username, after the same work.
    private func username(for identifier: String, tenantID: String, settings: JourneySettings) async throws -> String {
        guard settings.identifiers.contains(.email), identifier.contains("@") else { return identifier }
        let holders = try await auth.users.users(tenantID: tenantID, email: identifier, limit: 2)
        return holders.count == 1 ? holders[0].username : identifier
    }

    /// `screen` held back for `retryAfter`, its message (`key`) saying the same whole seconds as
    /// the `Retry-After` header the handlers send.
    private func throttled(
        _ screen: JourneyScreen, _ retryAfter: Duration, key: String = "journey.error.throttled"
    ) -> JourneyOutcome {
        let seconds = String(BrowserSignIn.wholeSeconds(retryAfter))
        return .throttled(screen.with([JourneyScreen.Message(key: key, values: ["seconds": seconds])]), retryAfter: retryAfter)
    }

    /// A new account from the register screen: its values checked (each refusal beside its
    /// field), the sign-up bounds spent, the password hashed off the cooperative pool. Without an
    /// e-mail address the user and its audit record (the user as actor) are written together and
    /// the person is signed in; with one, the account waits in the journey for the code the
    /// courier sends to the address (``verifyEmail``).
    private func signUp(
        _ journey: inout Journey, _ values: [String: String], screen: JourneyScreen, settings: JourneySettings,
        address: String?, onHostedPage: Bool
    ) async throws -> JourneyOutcome {
        let withEmail = settings.identifiers.contains(.email)
        let email = (values["email"] ?? "").trimmingCharacters(in: .whitespaces).lowercased()
        // Without a username among the identifiers, the address is the username.
        let typed = (values["username"] ?? "").trimmingCharacters(in: .whitespaces)
        let username = settings.identifiers.contains(.username) ? typed : email
        let name = (values["name"] ?? "").trimmingCharacters(in: .whitespaces)
        let password = values["password"] ?? ""
        var messages: [JourneyScreen.Message] = []
        if settings.identifiers.contains(.username), LocalUser.usernameProblem(username) != nil {
            messages.append(JourneyScreen.Message(field: "username", key: "journey.error.username"))
        }
        if withEmail, MailAddress.problem(email) != nil {
            messages.append(JourneyScreen.Message(field: "email", key: "journey.error.email"))
        }
        if name.count > 200 || ControlCharacters.held(in: name) {
            messages.append(JourneyScreen.Message(field: "name", key: "journey.error.name"))
        }
        if !LocalUser.passwordLengths.contains(password.count) {
            messages.append(
                JourneyScreen.Message(
                    field: "password", key: "journey.error.new-password",
                    values: ["min": String(LocalUser.passwordLengths.lowerBound)]))
        }
        let shown = screen.filled(["username": typed, "name": name, "email": email])
        guard messages.isEmpty else { return .refused(shown.with(messages)) }
        let windows = FixedWindow(cache: cache, clock: clock)
        for (key, limit, window) in [
            ("signup:\(journey.tenantID):tenant", Self.signUpsPerTenantPerDay, Int64(86_400)),
            ("signup:\(journey.tenantID):address:\(CacheKey.escape(address ?? "-"))", settings.signUpsPerAddressPerHour,
                3_600),
        ] {
            if let retryAfter = try await windows.spend(key, limit: limit, window: window) {
                return throttled(shown, retryAfter, key: "journey.error.sign-ups")
            }
        }
        let hasher = auth.hasher
        let hash = try await NIOThreadPool.singleton.runIfActive { try hasher.hash(password) }
        guard withEmail else {
            let user = LocalUser(
                tenantID: journey.tenantID, username: username, name: name.isEmpty ? nil : name, passwordHash: hash)
            guard try await create(user, journey: journey, address: address) else {
                return .refused(shown.with([JourneyScreen.Message(field: "username", key: "journey.error.taken")]))
            }
            return try await finish(journey, user: user, onHostedPage: onHostedPage)
        }
        // A username someone holds is said at once (as without e-mail); whether the address is
        // held is not: a code goes to a new address, a note to a known one, the screen is alike.
        if settings.identifiers.contains(.username),
            try await auth.users.user(tenantID: journey.tenantID, username: username) != nil
        {
            return .refused(shown.with([JourneyScreen.Message(field: "username", key: "journey.error.taken")]))
        }
        journey.pending = PendingAccount(
            username: username, name: name.isEmpty ? nil : name, email: email, passwordHash: hash)
        if let refused = try await sendCode(journey, settings: settings, address: address, screen: shown) {
            return refused
        }
        return try await move(&journey, to: .code, settings: settings)
    }

    /// Sends the e-mail code of `journey`'s pending account (or the note to a known address);
    /// nil when queued, else `screen` throttled.
    private func sendCode(
        _ journey: Journey, settings: JourneySettings, address: String?, screen: JourneyScreen
    ) async throws -> JourneyOutcome? {
        guard let courier, let pending = journey.pending else { throw JourneyError.notFound }
        let known = try await !auth.users.users(tenantID: journey.tenantID, email: pending.email, limit: 1).isEmpty
        switch try await courier.sendVerification(
            tenantID: journey.tenantID, email: pending.email, known: known,
            locale: journey.locale, settings: settings, address: address)
        {
        case .queued: return nil
        case .throttled(let retryAfter): return throttled(screen, retryAfter, key: "journey.error.codes")
        }
    }

    /// The code screen's submit: the right code creates the pending account (its e-mail
    /// verified by it) and signs the person in. A wrong code, a used or expired one, and any
    /// code for a known address (none was sent) are refused alike.
    private func verifyEmail(
        _ journey: Journey, _ code: String, screen: JourneyScreen, address: String?, onHostedPage: Bool
    ) async throws -> JourneyOutcome {
        guard let courier, let pending = journey.pending else { throw JourneyError.notFound }
        let shown = Self.sent(screen, to: pending.email)
        let typed = code.trimmingCharacters(in: .whitespaces)
        let wrong = JourneyOutcome.refused(
            shown.with([JourneyScreen.Message(field: "code", key: "journey.error.code")]))
        guard typed.range(of: JourneyStep.codePattern, options: .regularExpression) != nil else { return wrong }
        guard
            try await courier.codes.check(
                tenantID: journey.tenantID, purpose: .verifyEmail, identifier: pending.email, code: typed) == .accepted
        else { return wrong }
        let user = LocalUser(
            tenantID: journey.tenantID, username: pending.username, name: pending.name, email: pending.email,
            passwordHash: pending.passwordHash)
        guard try await create(user, journey: journey, address: address) else {
            return .refused(shown.with([JourneyScreen.Message(key: "journey.error.taken")]))
        }
        return try await finish(journey, user: user, onHostedPage: onHostedPage)
    }

    /// The code screen's "send a new code": a fresh code (the last one void), within the bounds.
    private func resend(
        _ journey: Journey, screen: JourneyScreen, settings: JourneySettings, address: String?
    ) async throws -> JourneyOutcome {
        guard let pending = journey.pending else { throw JourneyError.notFound }
        let shown = Self.sent(screen, to: pending.email)
        if let refused = try await sendCode(journey, settings: settings, address: address, screen: shown) {
            return refused
        }
        return .screen(shown)
    }

    /// The code screen saying where the code went (the address masked).
    static func sent(_ screen: JourneyScreen, to email: String) -> JourneyScreen {
        screen.with([
            JourneyScreen.Message(
                key: "journey.code.sent", values: ["address": CourierMessage.masked(email, channel: .email)])
        ])
    }

    /// Writes a signed-up user with its audit record (the user as actor); false when the
    /// username is taken meanwhile.
    private func create(_ user: LocalUser, journey: Journey, address: String?) async throws -> Bool {
        let now = clock.now()
        let clientID = journey.clientID
        do {
            try await auth.users.addUsers([user]) { stored in
                var draft = UserTrail.draft(
                    nil, stored,
                    actor: AuditActor(
                        subject: "user:\(stored.subject)", name: stored.username, roles: [],
                        auth: AuditAuthentication(method: "sign-up", clientID: clientID), address: address),
                    requestID: nil, verb: .create, time: now, outcome: .created)
                draft.note = AuditNote(action: "sign-up", summary: "signed up through \(clientID)")
                return draft
            }
            return true
        } catch AuthStoreError.alreadyExists {
            return false
        }
    }

    /// Signed in: the journey is taken (used once, by whichever replica gets there first) and
    /// its code issued.
    private func finish(_ journey: Journey, user: LocalUser, onHostedPage: Bool) async throws -> JourneyOutcome {
        guard let client = try await auth.client(tenantID: journey.tenantID, clientID: journey.clientID),
            try await cache.take(Self.key(journey.tenantID, journey.id)) != nil
        else { throw JourneyError.notFound }
        return .authorizationCode(
            try await auth.issueCode(
                client: client, redirectURI: onHostedPage ? journey.redirectURI : nil,
                codeChallenge: journey.codeChallenge, user: user,
                scope: journey.scope, nonce: journey.nonce, dpopJKT: nil, now: clock.now()))
    }

    private func save(_ journey: Journey) async throws {
        let left = journey.expiresAt.timeIntervalSince(clock.now())
        guard left > 0 else { throw JourneyError.notFound }
        try await cache.set(
            Self.key(journey.tenantID, journey.id), Array(try JSONEncoder().encode(journey)),
            ttl: .milliseconds(Int64(left * 1000)))
    }

    static func key(_ tenantID: String, _ id: String) -> String { "journey:\(tenantID):\(CacheKey.escape(id))" }
}
