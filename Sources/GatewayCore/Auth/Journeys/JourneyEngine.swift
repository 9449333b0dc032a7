import Foundation

/// A journey in flight (issue 63 §2): who started it, where it stands, and when it ends. Kept
/// in the shared cache, so any replica continues it; it holds no secret (the PKCE challenge,
/// the identifier typed).
public struct Journey: Sendable, Equatable, Codable {
    /// What the journey is for.
    public enum Kind: String, Sendable, Codable, CaseIterable {
        case signIn = "sign-in"
        case signUp = "sign-up"
        case recovery
    }

    /// 32 random bytes, base64url.
    public var id: String
    public var tenantID: String
    public var clientID: String
    public var kind: Kind
    public var step: String
    public var codeChallenge: String
    public var scope: String
    public var nonce: String?
    /// What the person typed on the identify screen.
    public var identifier: String?
    public var expiresAt: Date

    /// The step it stands at.
    public var currentStep: JourneyStep? { JourneyStep(rawValue: step) }
}

/// Why a journey call is refused (the HTTP layer maps each to a problem).
public enum JourneyError: Error, Sendable, Equatable {
    /// No such journey for this tenant: never started, finished, or expired.
    case notFound
    /// A kind this gateway does not run natively yet: the hosted page does it.
    case kindNotOffered(Journey.Kind)
}

/// What a journey step answered.
public enum JourneyOutcome: Sendable, Equatable {
    /// The next screen.
    case screen(JourneyScreen)
    /// The same screen with messages (a value refused, a wrong password): answered 422.
    case refused(JourneyScreen)
    /// Signed in: the code for the token endpoint, with the PKCE verifier (the journey ended).
    case authorizationCode(String)
    /// What comes next has no native screen yet (a second factor, recovery, sign-up): the app
    /// opens the journey's hosted URL.
    case hosted
}

/// Runs journeys for first-party clients (the same restriction as the authorization challenge
/// endpoint): start, then one step per call. Built so far: signing in with a username and a
/// password (``JourneySettings`` shape the screens); what needs a screen not built yet answers
/// ``JourneyOutcome/hosted``.
public struct JourneyEngine: Sendable {
    /// How long a journey lives from its start.
    public static let lifetime: Duration = .seconds(600)

    private let auth: AuthorizationServer
    private let cache: any Cache
    private let clock: WallClock

    public init(auth: AuthorizationServer, cache: any Cache, clock: WallClock) {
        self.auth = auth
        self.cache = cache
        self.clock = clock
    }

    /// Starts a journey: the client must be first-party with the code grant, PKCE S256 is
    /// required, the scope is what the client may hold. Throws ``OAuthError`` for a client or
    /// request the rules refuse, ``JourneyError/kindNotOffered(_:)`` for a kind not run natively.
    public func start(
        _ kind: Journey.Kind, tenantID: String, settings: JourneySettings, clientID: String?, codeChallenge: String?,
        codeChallengeMethod: String?, scope: String?, nonce: String?, loginHint: String?
    ) async throws -> (journey: Journey, screen: JourneyScreen) {
        let client = try await auth.authenticateClient(tenantID: tenantID, clientID: clientID, secret: nil)
        guard client.isFirstParty, client.allows(grantType: "authorization_code") else {
            throw OAuthError.unauthorizedClient("journeys are for the tenant's first-party apps with the code grant")
        }
        let challenge = try AuthorizationServer.checkPKCE(challenge: codeChallenge, method: codeChallengeMethod)
        let granted = try AuthorizationServer.grantedScope(scope, client: client)
        guard kind == .signIn else { throw JourneyError.kindNotOffered(kind) }
        let hint = loginHint.flatMap { $0.isEmpty || $0.count > 200 || ControlCharacters.held(in: $0) ? nil : $0 }
        let journey = Journey(
            id: Base64URL.random(byteCount: 32), tenantID: tenantID, clientID: client.clientID, kind: kind,
            step: JourneyStep.identify.rawValue, codeChallenge: challenge, scope: granted, nonce: nonce,
            identifier: hint, expiresAt: clock.now().addingTimeInterval(Double(Self.lifetime.components.seconds)))
        try await save(journey)
        let screen = JourneyStep.identify.screen(settings)
        return (journey, hint.map { screen.filled(["identifier": $0]) } ?? screen)
    }

    /// One step: `action` on the journey's current screen with the fields' `values`.
    public func advance(
        id: String, tenantID: String, settings: JourneySettings, action: String, values: [String: String],
        address: String?
    ) async throws -> JourneyOutcome {
        guard var journey = try await load(id: id, tenantID: tenantID), let step = journey.currentStep else {
            throw JourneyError.notFound
        }
        let screen = step.screen(settings)
        guard let chosen = JourneyScreen.Action(rawValue: action), screen.actions.contains(chosen) else {
            return .refused(screen.with([JourneyScreen.Message(key: "journey.error.action")]))
        }
        switch (step, chosen) {
        case (.identify, .submit):
            let identifier = (values["identifier"] ?? "").trimmingCharacters(in: .whitespaces)
            guard !identifier.isEmpty, identifier.count <= 200, !ControlCharacters.held(in: identifier) else {
                return .refused(
                    screen.filled(values).with([JourneyScreen.Message(field: "identifier", key: "journey.error.identifier")]))
            }
            journey.identifier = identifier
            journey.step = JourneyStep.password.rawValue
            try await save(journey)
            return .screen(JourneyStep.password.screen(settings))
        case (.password, .back):
            journey.step = JourneyStep.identify.rawValue
            try await save(journey)
            return .screen(JourneyStep.identify.screen(settings).filled(["identifier": journey.identifier ?? ""]))
        case (.password, .submit):
            return try await signIn(journey, password: values["password"] ?? "", settings: settings, address: address)
        default:
            // Offered by the screen, not run natively yet (sign-up, recovery).
            return .hosted
        }
    }

    private func signIn(
        _ journey: Journey, password: String, settings: JourneySettings, address: String?
    ) async throws -> JourneyOutcome {
        let screen = JourneyStep.password.screen(settings)
        guard !password.isEmpty, let identifier = journey.identifier else {
            return .refused(screen.with([JourneyScreen.Message(field: "password", key: "journey.error.password")]))
        }
        switch try await auth.authenticate(
            tenantID: journey.tenantID, username: identifier, password: password, address: address)
        {
        case .failed:
            return .refused(screen.with([JourneyScreen.Message(key: "journey.error.credentials")]))
        case .throttled(let retryAfter):
            let seconds = String(max(1, retryAfter.components.seconds))
            return .refused(screen.with([JourneyScreen.Message(key: "journey.error.throttled", values: [seconds])]))
        case .signedIn(let user):
            // A second factor has no native screen yet: the hosted page asks for it.
            guard user.totpSecret == nil else { return .hosted }
            guard let client = try await auth.client(tenantID: journey.tenantID, clientID: journey.clientID) else {
                throw JourneyError.notFound
            }
            // Used once: the replica that takes the journey issues the code.
            guard try await cache.take(Self.key(journey.tenantID, journey.id)) != nil else { throw JourneyError.notFound }
            return .authorizationCode(
                try await auth.issueCode(
                    client: client, redirectURI: nil, codeChallenge: journey.codeChallenge, user: user,
                    scope: journey.scope, nonce: journey.nonce, dpopJKT: nil, now: clock.now()))
        }
    }

    private func save(_ journey: Journey) async throws {
        let left = journey.expiresAt.timeIntervalSince(clock.now())
        guard left > 0 else { throw JourneyError.notFound }
        try await cache.set(
            Self.key(journey.tenantID, journey.id), Array(try JSONEncoder().encode(journey)),
            ttl: .milliseconds(Int64(left * 1000)))
    }

    private func load(id: String, tenantID: String) async throws -> Journey? {
        guard id.utf8.count <= 64, let bytes = try await cache.get(Self.key(tenantID, id)),
            let journey = try? JSONDecoder().decode(Journey.self, from: Data(bytes)), journey.tenantID == tenantID,
            journey.expiresAt > clock.now()
        else { return nil }
        return journey
    }

    static func key(_ tenantID: String, _ id: String) -> String { "journey:\(tenantID):\(CacheKey.escape(id))" }
}
