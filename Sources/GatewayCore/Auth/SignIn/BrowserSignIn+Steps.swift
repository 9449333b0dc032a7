import Foundation

extension BrowserSignIn {
    /// What answers a `GET`: the form, or a provider the request (or the tenant) chose.
    public enum Opening: Sendable, Equatable {
        case form(Page)
        /// The consent page of a browser whose session signed it in (``Page/consent``).
        case consent(Page)
        /// Send the browser to an identity provider, bound to it by the federation cookie `browser`.
        case upstream(location: String, browser: String)
        case exit(Exit)
    }

    /// What answers a posted form.
    public enum Step: Sendable, Equatable {
        /// The form again, with why the attempt was refused (``Page/notice``).
        case form(Page)
        /// The one-time-code page (its notice: a wrong code, or throttled).
        case codePage(Page, authSession: String)
        /// The consent page of a third-party client (``Page/consent``).
        case consentPage(Page)
        /// A native caller's refused attempt.
        case refused(Notice)
        /// A native caller whose user has a second factor: it must use the challenge endpoint.
        case secondFactorRequired
        case exit(Exit)
        /// A browser signed in: to the client's redirect URI with the code (`location`),
        /// holding the new single sign-on session's cookie value.
        case signedIn(location: String, session: String)
    }

    /// The end of a sign-in that leaves the form.
    public enum Exit: Sendable, Equatable {
        /// To the client's redirect URI, with a code or an RFC 6749 error.
        case redirect(String)
        /// An error page; `key` is the text's localization key (`login.error.…`).
        case errorPage(key: String)
    }

    /// What a form or code page shows, and the browser it is bound to.
    public struct Page: Sendable, Equatable {
        /// The CSRF cookie value the page's token is bound to (set again with the page).
        public let browser: String
        /// The page's CSRF token.
        public let csrf: String
        /// The validated redirect URI (the page's `form-action` may go there).
        public let redirectURI: String
        /// The user name to fill in.
        public let username: String?
        /// The tenant's identity providers ("Continue with …" links; the form only).
        public let providers: [IdentityProvider]
        /// Why the last attempt was refused; nil on a first showing.
        public let notice: Notice?
        /// What the consent page asks; nil on other pages.
        public var consent: ConsentScreen? = nil
    }

    /// Why an attempt was refused.
    public enum Notice: Sendable, Equatable {
        case wrongCredentials
        case wrongCode
        /// Too many attempts: try again after this many whole seconds.
        case throttled(retryAfter: Int)

        /// The localization key of the message.
        public var key: String {
            switch self {
            case .wrongCredentials: "login.error.credentials"
            case .wrongCode: "login.error.otp"
            case .throttled: "login.error.throttled"
            }
        }

        /// The message's parameters.
        public var parameters: [String: String] {
            guard case .throttled(let seconds) = self else { return [:] }
            return ["seconds": String(seconds)]
        }
    }

    /// Who posted the form.
    public enum Poster: Sendable, Equatable {
        /// A browser: its CSRF cookie value (nil: it sent none) and the form's token.
        case browser(cookie: String?, csrfToken: String?)
        /// A first-party app asking for JSON.
        case native
    }

    /// The posted sign-in fields.
    public struct Fields: Sendable, Equatable {
        public var username: String
        public var password: String
        /// The code page's session (the second step).
        public var authSession: String?
        public var otp: String?
        /// The consent page's session and answer (`allow` or `deny`).
        public var consentSession: String?
        public var consent: String?

        public init(
            username: String?, password: String?, authSession: String?, otp: String?, consentSession: String? = nil,
            consent: String? = nil
        ) {
            self.username = username ?? ""
            self.password = password ?? ""
            self.authSession = authSession
            self.otp = otp
            self.consentSession = consentSession
            self.consent = consent
        }
    }
}
