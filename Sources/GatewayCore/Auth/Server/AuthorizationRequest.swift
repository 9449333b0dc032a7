import Foundation

/// The parameters of an authorization request (query, form or PAR).
public struct AuthorizationRequest: Sendable, Codable, Equatable {
    public var responseType: String?
    public var clientID: String?
    public var redirectURI: String?
    public var scope: String?
    public var state: String?
    public var nonce: String?
    public var codeChallenge: String?
    public var codeChallengeMethod: String?
    public var prompt: String?
    public var loginHint: String?
    public var acrValues: String?
    /// `acr_values` as a list, in the order asked.
    public var acrList: [String] { (acrValues ?? "").split(separator: " ").map(String.init) }
    /// `max_age`: the most seconds since the person last actively authenticated; 0 (like
    /// `prompt=login`) asks for a fresh sign-in.
    public var maxAge: String? = nil
    /// A PAR `request_uri` replacing the other parameters.
    public var requestURI: String?
    /// Preferred languages of the sign-in page (`ui_locales`, space-separated BCP 47 tags).
    public var uiLocales: String?

    public init(
        responseType: String? = nil, clientID: String? = nil, redirectURI: String? = nil, scope: String? = nil,
        state: String? = nil, nonce: String? = nil,
        codeChallenge: String? = nil, codeChallengeMethod: String? = nil, prompt: String? = nil,
        loginHint: String? = nil, acrValues: String? = nil, requestURI: String? = nil,
        uiLocales: String? = nil, maxAge: String? = nil
    ) {
        self.maxAge = maxAge
        self.uiLocales = uiLocales
        self.responseType = responseType
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.scope = scope
        self.state = state
        self.nonce = nonce
        self.codeChallenge = codeChallenge
        self.codeChallengeMethod = codeChallengeMethod
        self.prompt = prompt
        self.loginHint = loginHint
        self.acrValues = acrValues
        self.requestURI = requestURI
    }
}

extension AuthorizationRequest {
    /// The `prompt` values (space-separated).
    public var prompts: Set<String> { Set((prompt ?? "").split(separator: " ").map(String.init)) }
    /// `max_age` in seconds (validated: a whole number, 0 or more).
    public var maxAgeSeconds: Int? { maxAge.flatMap { Int($0) } }
}

/// A request that passed validation: the client and the exact redirect URI to use.
public struct ValidatedAuthorization: Sendable, Equatable {
    public var client: OAuthClient
    public var redirectURI: String
    public var request: AuthorizationRequest
    /// The granted scope (requested ∩ allowed; `openid` always).
    public var scope: String
}

/// Why an authorization request failed.
public enum AuthorizationFailure: Error, Sendable, Equatable {
    /// Client or redirect URI cannot be trusted: show an error page, never redirect.
    case errorPage(AuthorizationPageError)
    /// Redirect the error back to the (validated) client per RFC 6749 §4.1.2.1.
    case redirect(OAuthError, redirectURI: String, state: String?)
}

/// Why a request gets an error page instead of a redirect: nothing in it can be trusted to
/// send the user back. Each has a localizable text key (`login.error.<rawValue>`).
public enum AuthorizationPageError: String, Error, Sendable, Equatable, CaseIterable {
    case requestURIInvalid = "request_uri_invalid"
    case requestURIUnknown = "request_uri_unknown"
    case unknownClient = "unknown_client"
    case redirectURINotRegistered = "redirect_uri_not_registered"
    case redirectURIRequired = "redirect_uri_required"

    /// The English text (the page localizes through `key`).
    public var message: String {
        switch self {
        case .requestURIInvalid: "The request_uri is invalid."
        case .requestURIUnknown: "The request_uri is unknown, expired or already used."
        case .unknownClient: "Unknown client."
        case .redirectURINotRegistered: "The redirect_uri is not registered for this client."
        case .redirectURIRequired: "redirect_uri is required."
        }
    }

    /// The localization key of the text.
    public var key: String { "login.error.\(rawValue)" }
}
