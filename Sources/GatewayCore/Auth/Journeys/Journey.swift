import Foundation

/// A journey in flight (issue 63 §2): who started it, where it stands, and when it ends. Kept
/// in the shared cache, so any replica continues it. It holds no password and no code: the
/// PKCE challenge, the identifier typed, the handle of a pending second factor, and a new
/// account waiting for its e-mail code (its password only as the hash).
public struct Journey: Sendable, Equatable, Codable {
    /// What the journey is for.
    public enum Kind: String, Sendable, Codable, CaseIterable {
        case signIn = "sign-in"
        case signUp = "sign-up"
        case recovery
    }

    /// 32 random bytes, base64url: the journey's handle, known only to the app that started it.
    public var id: String
    public var tenantID: String
    public var clientID: String
    public var kind: Kind
    public var step: String
    public var codeChallenge: String
    public var scope: String
    public var nonce: String?
    /// Where the hosted page sends the browser back with the code (registered for the client).
    public var redirectURI: String
    /// The app's `state`, given back with the hosted page's redirect.
    public var state: String?
    /// The language its screens are worded in (negotiated at the start).
    public var locale: String
    /// What the person typed on the identify screen.
    public var identifier: String?
    /// The pending second factor's session (``PendingSignIn``), after a right password.
    public var authSession: String?
    /// A sign-up waiting for the code sent to its e-mail address.
    public var pending: PendingAccount? = nil
    /// The username whose password a recovery sets, once its code (and second factor) passed.
    public var recovering: String? = nil
    /// How the person authenticated so far (RFC 8176: `pwd`, `sms`, `otp`), for the ID token.
    public var amr: [String]? = nil
    /// The start's `acr_values`, in order, and what each class anybody defined demands (looked
    /// up at the start): the ID token's `acr` is the first the sign-in meets.
    public var acrValues: [String]? = nil
    public var acrDemands: [String: [String]]? = nil
    /// The passkey ceremony the current screen carries (issue 64): its options, and the token
    /// that finishes it. Each screen that shows one begins a new one (a ceremony is used once).
    public var passkeyPrompt: PasskeyPrompt? = nil
    /// The tenant's relying party as of the start; nil: no passkeys in this journey.
    public var party: JourneyParty? = nil
    /// The account signed in and offered to create a passkey before its code is issued.
    public var signedInSubject: String? = nil
    /// Whether creating a passkey was offered already (once a journey).
    public var passkeyOffered: Bool? = nil
    public var expiresAt: Date

    /// The step it stands at.
    public var currentStep: JourneyStep? { JourneyStep(rawValue: step) }
}

/// An account a sign-up asked for, created once the codes sent to its e-mail address and its
/// phone number (those it has) come back, in that order.
public struct PendingAccount: Sendable, Equatable, Codable {
    public var username: String
    public var name: String?
    /// Lowercased.
    public var email: String?
    /// E.164.
    public var phone: String?
    /// The password's hash; ``IdentityLinker/noPassword`` for an account signing up with a
    /// passkey, which is created once its passkey is (the subject named beforehand).
    public var passwordHash: String
    /// The account's subject, named before the account exists when its passkey is made first.
    public var subject: String? = nil
    /// The channels whose code came back so far.
    public var verified: [JourneySettings.Channel] = []

    public init(
        username: String, name: String?, email: String?, phone: String? = nil, passwordHash: String
    ) {
        self.username = username
        self.name = name
        self.email = email
        self.phone = phone
        self.passwordHash = passwordHash
    }

    /// The channel whose code the account waits for (e-mail first), with its identifier; nil
    /// when every one came back.
    public var awaiting: (channel: JourneySettings.Channel, identifier: String)? {
        if let email, !verified.contains(.email) { return (.email, email) }
        if let phone, !verified.contains(.phone) { return (.phone, phone) }
        return nil
    }
}

/// A passkey ceremony a journey screen carries: what the platform is handed (`options` of the
/// screen's `passkey` field) and the ceremony's token, which stays on the server.
public struct PasskeyPrompt: Sendable, Equatable, Codable {
    public var token: String
    /// To create a passkey (registration).
    public var creation: CreationOptionsJSON?
    /// To use one (authentication; no allowed credentials: any of the tenant's, discoverable).
    public var request: RequestOptionsJSON?
}

/// What an app asks for when it starts a journey: an authorization request's parameters.
public struct JourneyStart: Sendable, Equatable {
    public var kind: Journey.Kind
    public var clientID: String?
    public var codeChallenge: String?
    public var codeChallengeMethod: String?
    public var scope: String?
    public var nonce: String?
    /// The identifier to fill in (`login_hint`).
    /// `acr_values`: the classes asked (space-separated), the tenant's own or built in.
    public var acrValues: String? = nil
    public var loginHint: String?
    /// Where the hosted page returns; nil: the client's only registered redirect URI.
    public var redirectURI: String?
    public var state: String?
    /// The language screens are worded in (the HTTP layer negotiates it).
    public var locale: String

    public init(
        kind: Journey.Kind, clientID: String?, codeChallenge: String?, codeChallengeMethod: String?,
        scope: String? = nil, nonce: String? = nil, loginHint: String? = nil, redirectURI: String? = nil,
        state: String? = nil, locale: String = "en", acrValues: String? = nil
    ) {
        self.acrValues = acrValues
        self.kind = kind
        self.clientID = clientID
        self.codeChallenge = codeChallenge
        self.codeChallengeMethod = codeChallengeMethod
        self.scope = scope
        self.nonce = nonce
        self.loginHint = loginHint
        self.redirectURI = redirectURI
        self.state = state
        self.locale = locale
    }
}

/// Why a journey call is refused (the HTTP layer maps each to a problem).
public enum JourneyError: Error, Sendable, Equatable {
    /// No such journey for this tenant: never started, finished, or expired.
    case notFound
    /// A kind the tenant does not offer (sign-up off, or asking what is not run yet).
    case kindNotOffered(Journey.Kind)
}

/// What a journey step answered.
public enum JourneyOutcome: Sendable, Equatable {
    /// The next screen.
    case screen(JourneyScreen)
    /// The same screen with messages (a value refused, a wrong password): answered 422.
    case refused(JourneyScreen)
    /// The same screen with a message: held back by the sign-in throttle for `retryAfter`.
    case throttled(JourneyScreen, retryAfter: Duration)
    /// Signed in: the code for the token endpoint, with the PKCE verifier (the journey ended).
    case authorizationCode(String)
    /// Signed in on the hosted page: the code, and the browser's new single sign-on session
    /// (its cookie value).
    case signedIn(code: String, session: String)
}
