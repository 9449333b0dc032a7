import Foundation
import GatewayAPI
import GatewayCore

extension GatewayAPIHandler {
    /// The sign-in form's second page, for users with a TOTP second factor: after the right
    /// password it starts a ``PendingSignIn`` bound to this browser and asks for the code;
    /// the code posts back with the session and the same authorization parameters.
    struct OTPStep {
        /// The result of the code page: a signed-in user, or the page to answer with.
        enum Result {
            case signedIn(LocalUser)
            case answer(Operations.PostAuthorize.Output)
        }

        let handler: GatewayAPIHandler
        let tenant: Tenant
        let validated: ValidatedAuthorization
        let request: AuthorizationRequest
        let texts: LoginTexts
        let browser: String
        let cookie: CSRFCookie
        let policy: String

        /// Starts the pending sign-in and shows the code page.
        func start(user: LocalUser) async throws -> Operations.PostAuthorize.Output {
            let signIn = PendingSignIn(
                tenantID: tenant.id, clientID: validated.client.clientID, username: user.username,
                redirectURI: validated.redirectURI,
                scope: validated.scope, codeChallenge: validated.request.codeChallenge ?? "",
                nonce: validated.request.nonce, binding: .browser(browser))
            let authSession = try await handler.services.auth.pending.start(signIn)
            return .ok(
                .init(headers: headers(), body: .textHtmlCharsetUtf8(.init(page(authSession: authSession, error: nil))))
            )
        }

        /// Checks the code. A session that is unknown, ended, from another browser or for
        /// another request gets the "start again" page.
        func verify(authSession: String, code: String?) async throws -> Result {
            let auth = handler.services.auth
            do {
                let signIn = try await auth.pendingSignIn(
                    authSession, tenantID: tenant.id, clientID: validated.client.clientID, binding: .browser(browser))
                guard signIn.redirectURI == validated.redirectURI,
                    signIn.codeChallenge == validated.request.codeChallenge, signIn.scope == validated.scope
                else {
                    return .answer(sessionEnded())
                }
                switch try await auth.verifySecondFactor(
                    authSession: authSession, signIn: signIn, code: code, address: RequestScope.current?.clientAddress)
                {
                case .signedIn(let user, _):
                    return .signedIn(user)
                case .codeRequired, .failed:
                    return .answer(
                        .unauthorized(
                            .init(
                                headers: .init(
                                    cacheControl: "no-store", contentSecurityPolicy: policy,
                                    setCookie: cookie.setCookie(browser)),
                                body: .textHtmlCharsetUtf8(
                                    .init(page(authSession: authSession, error: texts.text("login.error.otp")))))))
                case .throttled(let retryAfter):
                    let seconds = GatewayAPIHandler.wholeSeconds(retryAfter)
                    let html = page(
                        authSession: authSession,
                        error: texts.text("login.error.throttled", ["seconds": String(seconds)]))
                    return .answer(
                        .tooManyRequests(
                            .init(
                                headers: .init(
                                    cacheControl: "no-store", contentSecurityPolicy: policy,
                                    setCookie: cookie.setCookie(browser),
                                    retryAfter: String(seconds)), body: .textHtmlCharsetUtf8(.init(html)))))
                }
            } catch let error as OAuthError where error.code == "invalid_session" {
                return .answer(sessionEnded())
            }
        }

        private func headers() -> Operations.PostAuthorize.Output.Ok.Headers {
            .init(cacheControl: "no-store", contentSecurityPolicy: policy, setCookie: cookie.setCookie(browser))
        }

        private func page(authSession: String, error: String?) -> String {
            LoginPage.otpForm(
                tenant: tenant, texts: texts, action: "/t/\(tenant.id)/oauth2/authorize", request: request,
                csrf: handler.services.csrf.issue(
                    binding: GatewayAPIHandler.csrfBinding(tenant.id, validated, browser: browser)),
                authSession: authSession, error: error)
        }

        private func sessionEnded() -> Operations.PostAuthorize.Output {
            .forbidden(
                .init(
                    headers: .init(cacheControl: "no-store", contentSecurityPolicy: LoginPage.contentSecurityPolicy),
                    body: .textHtmlCharsetUtf8(.init(LoginPage.error(texts.text("login.error.session"), texts: texts))))
            )
        }
    }
}
