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
    /// A PAR `request_uri` replacing the other parameters.
    public var requestURI: String?
    /// Preferred languages of the sign-in page (`ui_locales`, space-separated BCP 47 tags).
    public var uiLocales: String?

    public init(responseType: String? = nil, clientID: String? = nil, redirectURI: String? = nil, scope: String? = nil, state: String? = nil, nonce: String? = nil,
                codeChallenge: String? = nil, codeChallengeMethod: String? = nil, prompt: String? = nil, loginHint: String? = nil, acrValues: String? = nil, requestURI: String? = nil,
                uiLocales: String? = nil) {
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
    case errorPage(String)
    /// Redirect the error back to the (validated) client per RFC 6749 §4.1.2.1.
    case redirect(OAuthError, redirectURI: String, state: String?)
}
