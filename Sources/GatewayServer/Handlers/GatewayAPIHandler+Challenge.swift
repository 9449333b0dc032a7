import Foundation
import GatewayAPI
import GatewayCore

extension GatewayAPIHandler {
    /// The authorization challenge endpoint: translates the form to a ``ChallengeRequest``
    /// and the ``ChallengeOutcome`` (or ``OAuthError``) to the draft's JSON answers.
    func postAuthorizationChallenge(
        _ input: Operations.PostAuthorizationChallenge.Input
    ) async throws -> Operations.PostAuthorizationChallenge.Output {
        let tenant = try RequestScope.requireTenant()
        guard case .urlEncodedForm(let form) = input.body else {
            throw GatewayProblem.invalidRequest("expected a form")
        }
        let issuer = services.issuerBase.issuer(tenantID: tenant.id)
        func refusal(_ error: OAuthError) -> Operations.PostAuthorizationChallenge.Output {
            let body = Components.Schemas.ChallengeError(error: error.code, errorDescription: error.description)
            return error.status == 401
                ? .unauthorized(.init(headers: .init(cacheControl: "no-store"), body: .json(body)))
                : .badRequest(.init(headers: .init(cacheControl: "no-store"), body: .json(body)))
        }
        do {
            if let tooLong = Self.overlongChallengeParameter(form) {
                throw OAuthError.invalidRequest("\(tooLong) is too long")
            }
            let (clientID, secret) = Self.clientCredentials(form.clientId, form.clientSecret)
            // DPoP server nonces are a token-endpoint policy (--dpop-nonce); here a proof binds.
            let jkt = try await services.auth.proofThumbprint(
                input.headers.dPoP, url: issuer + "/oauth2/authorize-challenge", required: false)
            let request = ChallengeRequest(
                clientID: clientID, clientSecret: secret, responseType: form.responseType, scope: form.scope,
                codeChallenge: form.codeChallenge,
                codeChallengeMethod: form.codeChallengeMethod, nonce: form.nonce, authSession: form.authSession,
                username: form.username,
                password: form.password, otp: form.otp, dpopJKT: jkt, address: RequestScope.current?.clientAddress)
            switch try await services.auth.challenge(request, tenantID: tenant.id) {
            case .authorizationCode(let code):
                return .ok(.init(headers: .init(cacheControl: "no-store"), body: .json(.init(authorizationCode: code))))
            case .otpRequired(let authSession):
                return .unauthorized(
                    .init(
                        headers: .init(cacheControl: "no-store"),
                        body: .json(
                            .init(
                                error: "insufficient_authorization",
                                errorDescription: "enter the one-time code of your authenticator app",
                                authSession: authSession, otpRequired: true))))
            case .throttled(let retryAfter):
                let seconds = BrowserSignIn.wholeSeconds(retryAfter)
                return .tooManyRequests(
                    .init(
                        headers: .init(cacheControl: "no-store", retryAfter: String(seconds)),
                        body: .json(
                            .init(
                                error: "temporarily_unavailable",
                                errorDescription:
                                    "too many sign-in attempts for this account from your network; retry after \(seconds) s"
                            ))))
            }
        } catch let error as OAuthError {
            return refusal(error)
        }
    }

    /// The first parameter longer than the contract allows (the generated server does not check maxLength).
    static func overlongChallengeParameter(_ f: Components.Schemas.ChallengeForm) -> String? {
        ParameterLength.firstOverlong([
            ("response_type", f.responseType, 64), ("client_id", f.clientId, 128),
            ("client_secret", f.clientSecret, 256), ("scope", f.scope, 512),
            ("code_challenge", f.codeChallenge, 256), ("code_challenge_method", f.codeChallengeMethod, 16),
            ("nonce", f.nonce, 512),
            ("auth_session", f.authSession, 128), ("username", f.username, 200), ("password", f.password, 1024),
            ("otp", f.otp, 16),
        ])
    }
}
