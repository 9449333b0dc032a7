import Foundation

extension BrowserSignIn {
    /// The second page of a user with a TOTP second factor: after the right password it
    /// starts a ``PendingSignIn`` bound to this browser and asks for the code; the code
    /// posts back with the session and the same authorization parameters.
    struct CodeStep {
        /// The code page's result: a signed-in user, or the step to answer with.
        enum Result {
            case signedIn(LocalUser)
            case step(Step)
        }

        let flow: BrowserSignIn
        let tenantID: String
        let validated: ValidatedAuthorization
        let browser: String

        /// Starts the pending sign-in and shows the code page.
        func start(user: LocalUser) async throws -> Step {
            let signIn = PendingSignIn(
                tenantID: tenantID, clientID: validated.client.clientID, username: user.username,
                redirectURI: validated.redirectURI, scope: validated.scope,
                codeChallenge: validated.request.codeChallenge ?? "", nonce: validated.request.nonce,
                binding: .browser(browser))
            let authSession = try await flow.auth.pending.start(signIn)
            return codePage(authSession, notice: nil)
        }

        /// Checks the code. A session that is unknown, ended, from another browser or for
        /// another request ends on the "start again" page.
        func verify(authSession: String, code: String?, address: String?) async throws -> Result {
            let auth = flow.auth
            do {
                let signIn = try await auth.pendingSignIn(
                    authSession, tenantID: tenantID, clientID: validated.client.clientID, binding: .browser(browser))
                guard signIn.redirectURI == validated.redirectURI,
                    signIn.codeChallenge == validated.request.codeChallenge, signIn.scope == validated.scope
                else {
                    return .step(.exit(.errorPage(key: "login.error.session")))
                }
                switch try await auth.verifySecondFactor(
                    authSession: authSession, signIn: signIn, code: code, address: address)
                {
                case .signedIn(let user, _):
                    return .signedIn(user)
                case .codeRequired, .failed:
                    return .step(codePage(authSession, notice: .wrongCode))
                case .throttled(let retryAfter):
                    return .step(codePage(authSession, notice: .throttled(retryAfter: BrowserSignIn.wholeSeconds(retryAfter))))
                }
            } catch let error as OAuthError where error.code == "invalid_session" {
                return .step(.exit(.errorPage(key: "login.error.session")))
            }
        }

        private func codePage(_ authSession: String, notice: Notice?) -> Step {
            .codePage(
                flow.page(validated, tenantID: tenantID, browser: browser, username: nil, notice: notice),
                authSession: authSession)
        }
    }
}
