import AdminAPI
import Foundation
import GatewayCore

/// The device authorization grant (RFC 8628) of the operator realm: the endpoint a terminal
/// starts from and the page a person approves on; ``OperatorSignIn`` decides.
extension AdminAPIHandler {
    func operatorDeviceAuthorization(
        _ input: Operations.OperatorDeviceAuthorization.Input
    ) async throws -> Operations.OperatorDeviceAuthorization.Output {
        guard case .urlEncodedForm(let form) = input.body else { throw AdminError.badRequest("a form body") }
        let started: OperatorDeviceStart
        do {
            started = try await signIn.startDeviceAuthorization(clientID: form.clientId)
        } catch OperatorTokenError.invalidClient {
            return .unauthorized(
                .init(body: .json(.init(error: "invalid_client", errorDescription: "client authentication failed"))))
        }
        let page = AdminScope.current.issuer + "/oauth2/device"
        return .ok(
            .init(
                headers: .init(cacheControl: "no-store"),
                body: .json(
                    .init(
                        deviceCode: started.deviceCode, userCode: started.userCode, verificationUri: page,
                        verificationUriComplete: page + "?user_code=" + started.userCode, expiresIn: started.expiresIn,
                        interval: started.interval))))
    }

    func operatorDevicePage(
        _ input: Operations.OperatorDevicePage.Input
    ) async throws -> Operations.OperatorDevicePage.Output {
        let userCode = input.query.userCode
        guard (userCode?.unicodeScalars.count ?? 0) <= 16 else {
            return .badRequest(.init(body: .textHtmlCharsetUtf8(.init(LoginPage.error("user_code is too long")))))
        }
        let issuer = AdminScope.current.issuer
        let cookie = CSRFCookie.operators(issuer: issuer)
        let browser = cookie.valueOrNew(in: AdminScope.current.headers)
        return .ok(
            .init(
                headers: .init(
                    cacheControl: "no-store", contentSecurityPolicy: LoginPage.contentSecurityPolicy,
                    setCookie: cookie.setCookie(browser)),
                body: .textHtmlCharsetUtf8(
                    .init(
                        OperatorSignInPage.deviceForm(
                            userCode: userCode.flatMap(OperatorSignIn.normalizedUserCode),
                            csrf: OperatorSignInPage.csrfToken(cookie: browser), username: nil, error: nil)))))
    }

    func operatorDeviceApprove(
        _ input: Operations.OperatorDeviceApprove.Input
    ) async throws -> Operations.OperatorDeviceApprove.Output {
        guard case .urlEncodedForm(let form) = input.body else { throw AdminError.badRequest("a form body") }
        let tooLong = ParameterLength.firstOverlong([
            ("csrf_token", form.csrfToken, 100), ("user_code", form.userCode, 16), ("username", form.username, 200),
            ("password", form.password, 1024), ("otp", form.otp, 16),
        ])
        if let tooLong {
            return .badRequest(.init(body: .textHtmlCharsetUtf8(.init(LoginPage.error("\(tooLong) is too long")))))
        }
        let issuer = AdminScope.current.issuer
        guard let token = form.csrfToken,
            OperatorSignInPage.csrfHolds(token, headers: AdminScope.current.headers, issuer: issuer)
        else {
            return .forbidden(
                .init(
                    body: .textHtmlCharsetUtf8(
                        .init(LoginPage.error("The form expired or was not sent from this browser; start again.")))))
        }
        let again = { (error: String) in
            OperatorSignInPage.deviceForm(
                userCode: form.userCode.flatMap(OperatorSignIn.normalizedUserCode) ?? form.userCode, csrf: token,
                username: form.username, error: error)
        }
        let approval = try await signIn.approveDevice(
            userCode: form.userCode ?? "", username: form.username ?? "", password: form.password ?? "", code: form.otp,
            address: AdminScope.current.address)
        switch approval {
        case .approved:
            return .ok(
                .init(
                    headers: .init(cacheControl: "no-store"),
                    body: .textHtmlCharsetUtf8(.init(OperatorSignInPage.deviceApproved))))
        case .unknownCode:
            return .badRequest(
                .init(body: .textHtmlCharsetUtf8(.init(again("That code is unknown, expired or used.")))))
        case .refused(let outcome):
            let text = OperatorSignInPage.refusal(outcome)
            switch outcome {
            case .codeRequired:
                return .ok(.init(headers: .init(cacheControl: "no-store"), body: .textHtmlCharsetUtf8(.init(again(text)))))
            case .secondFactorNotEnrolled:
                return .forbidden(.init(body: .textHtmlCharsetUtf8(.init(LoginPage.error(text)))))
            case .throttled(let retryAfter):
                return .tooManyRequests(
                    .init(
                        headers: .init(retryAfter: OperatorSignInPage.retryAfterSeconds(retryAfter)),
                        body: .textHtmlCharsetUtf8(.init(again(text)))))
            case .failed, .codeFailed, .redirect:
                return .unauthorized(.init(body: .textHtmlCharsetUtf8(.init(again(text)))))
            }
        }
    }
}
