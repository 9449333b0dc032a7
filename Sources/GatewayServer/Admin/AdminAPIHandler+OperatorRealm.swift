import AdminAPI
import Foundation
import GatewayCore

/// The operator realm's metadata, sign-in page and token endpoint: handlers translate
/// forms and outcomes; ``OperatorSignIn`` and ``OperatorAuthenticator`` decide.
extension AdminAPIHandler {
    func operatorRealmMetadata(
        _ input: Operations.OperatorRealmMetadata.Input
    ) async throws -> Operations.OperatorRealmMetadata.Output {
        let issuer = AdminScope.current.issuer
        return .ok(
            .init(
                body: .json(
                    .init(
                        issuer: issuer, authorizationEndpoint: issuer + "/oauth2/authorize",
                        tokenEndpoint: issuer + "/oauth2/token",
                        deviceAuthorizationEndpoint: issuer + "/oauth2/device_authorization", responseTypesSupported: ["code"],
                        grantTypesSupported: OperatorAuthenticator.grantTypes, codeChallengeMethodsSupported: ["S256"],
                        tokenEndpointAuthMethodsSupported: [
                            "none", "client_secret_basic", "client_secret_post", "private_key_jwt",
                        ],
                        tokenEndpointAuthSigningAlgValuesSupported: ["ES256", "RS256"],
                        authorizationResponseIssParameterSupported: true))))
    }

    func operatorAuthorize(
        _ input: Operations.OperatorAuthorize.Input
    ) async throws -> Operations.OperatorAuthorize.Output {
        let q = input.query
        let request = OperatorAuthorizationRequest(
            responseType: q.responseType, clientID: q.clientId, redirectURI: q.redirectUri, state: q.state,
            codeChallenge: q.codeChallenge, codeChallengeMethod: q.codeChallengeMethod)
        let issuer = AdminScope.current.issuer
        if let tooLong = Self.overlong(request) {
            return .badRequest(
                .init(
                    headers: .init(cacheControl: "no-store"),
                    body: .textHtmlCharsetUtf8(
                        .init(
                            LoginPage.error("\(tooLong) is too long")))))
        }
        do {
            _ = try signIn.validate(request, issuer: issuer)
        } catch OperatorAuthorizationError.page(let message) {
            return .forbidden(
                .init(
                    headers: .init(cacheControl: "no-store"),
                    body: .textHtmlCharsetUtf8(.init(LoginPage.error(message)))))
        } catch OperatorAuthorizationError.redirect(let location) {
            return .found(.init(headers: .init(location: location)))
        }
        let cookie = CSRFCookie.operators(issuer: issuer)
        let browser = cookie.valueOrNew(in: AdminScope.current.headers)
        return .ok(
            .init(
                headers: .init(
                    cacheControl: "no-store",
                    contentSecurityPolicy: LoginPage.contentSecurityPolicy(redirectingTo: request.redirectURI ?? ""),
                    setCookie: cookie.setCookie(browser)),
                body: .textHtmlCharsetUtf8(
                    .init(
                        OperatorSignInPage.form(
                            request, csrf: OperatorSignInPage.csrfToken(cookie: browser), username: nil, error: nil)))))
    }

    func operatorSignIn(_ input: Operations.OperatorSignIn.Input) async throws -> Operations.OperatorSignIn.Output {
        guard case .urlEncodedForm(let form) = input.body else { throw AdminError.badRequest("a form body") }
        let request = OperatorAuthorizationRequest(
            responseType: form.responseType, clientID: form.clientId, redirectURI: form.redirectUri, state: form.state,
            codeChallenge: form.codeChallenge, codeChallengeMethod: form.codeChallengeMethod)
        let issuer = AdminScope.current.issuer
        let page = { (message: String) -> Operations.OperatorSignIn.Output in
            .forbidden(
                .init(
                    headers: .init(cacheControl: "no-store"),
                    body: .textHtmlCharsetUtf8(.init(LoginPage.error(message)))))
        }
        if let tooLong = Self.overlong(request) ?? Self.overlongCredential(form) {
            return .badRequest(
                .init(
                    headers: .init(cacheControl: "no-store"),
                    body: .textHtmlCharsetUtf8(.init(LoginPage.error("\(tooLong) is too long")))))
        }
        guard let token = form.csrfToken,
            OperatorSignInPage.csrfHolds(token, headers: AdminScope.current.headers, issuer: issuer)
        else { return page("The form expired or was not sent from this browser; start the sign-in again.") }
        let outcome: OperatorSignInOutcome
        do {
            outcome = try await signIn.signIn(
                request, username: form.username ?? "", password: form.password ?? "", code: form.otp,
                address: AdminScope.current.address, issuer: issuer)
        } catch OperatorAuthorizationError.page(let message) {
            return page(message)
        } catch OperatorAuthorizationError.redirect(let location) {
            return .seeOther(.init(headers: .init(location: location)))
        }
        let again = { (outcome: OperatorSignInOutcome) in
            OperatorSignInPage.form(
                request, csrf: token, username: form.username.map { String($0.prefix(200)) },
                error: OperatorSignInPage.refusal(outcome))
        }
        let policy = LoginPage.contentSecurityPolicy(redirectingTo: request.redirectURI ?? "")
        switch outcome {
        case .redirect(let location):
            return .seeOther(.init(headers: .init(location: location)))
        case .failed, .codeFailed:
            return .unauthorized(
                .init(
                    headers: .init(cacheControl: "no-store", contentSecurityPolicy: policy),
                    body: .textHtmlCharsetUtf8(.init(again(outcome)))))
        case .codeRequired:
            return .ok(
                .init(
                    headers: .init(cacheControl: "no-store", contentSecurityPolicy: policy),
                    body: .textHtmlCharsetUtf8(.init(again(outcome)))))
        case .secondFactorNotEnrolled:
            return page(OperatorSignInPage.refusal(outcome))
        case .throttled(let retryAfter):
            return .tooManyRequests(
                .init(
                    headers: .init(
                        retryAfter: OperatorSignInPage.retryAfterSeconds(retryAfter), cacheControl: "no-store",
                        contentSecurityPolicy: policy),
                    body: .textHtmlCharsetUtf8(.init(again(outcome)))))
        }
    }

    /// The first authorization parameter longer than the contract allows.
    static func overlong(_ r: OperatorAuthorizationRequest) -> String? {
        ParameterLength.firstOverlong([
            ("response_type", r.responseType, 64), ("client_id", r.clientID, 63), ("redirect_uri", r.redirectURI, 512),
            ("state", r.state, 512), ("code_challenge", r.codeChallenge, 128),
            ("code_challenge_method", r.codeChallengeMethod, 16),
        ])
    }

    static func overlongCredential(_ form: Components.Schemas.OperatorSignInForm) -> String? {
        ParameterLength.firstOverlong([
            ("csrf_token", form.csrfToken, 100), ("username", form.username, 200), ("password", form.password, 1024),
            ("otp", form.otp, 16),
        ])
    }
}
