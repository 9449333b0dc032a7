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
        let page = OperatorSignInPage.issuer(authority: AdminScope.current.authority) + "/oauth2/device"
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
        let issuer = OperatorSignInPage.issuer(authority: AdminScope.current.authority)
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
        let limits: [(String, String?, Int)] = [
            ("csrf_token", form.csrfToken, 100), ("user_code", form.userCode, 16), ("username", form.username, 200),
            ("password", form.password, 1024), ("otp", form.otp, 16),
        ]
        if let tooLong = limits.first(where: { ($0.1?.unicodeScalars.count ?? 0) > $0.2 })?.0 {
            return .badRequest(.init(body: .textHtmlCharsetUtf8(.init(LoginPage.error("\(tooLong) is too long")))))
        }
        let issuer = OperatorSignInPage.issuer(authority: AdminScope.current.authority)
        guard let browser = CSRFCookie.operators(issuer: issuer).value(in: AdminScope.current.headers),
            let token = form.csrfToken, ConstantTime.equals(token, OperatorSignInPage.csrfToken(cookie: browser))
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
        case .refused(.codeRequired):
            return .ok(
                .init(
                    headers: .init(cacheControl: "no-store"),
                    body: .textHtmlCharsetUtf8(
                        .init(again("Enter the one-time code from your authenticator app, with your password again."))))
            )
        case .refused(.codeFailed):
            return .unauthorized(
                .init(body: .textHtmlCharsetUtf8(.init(again("The one-time code is wrong or was used already.")))))
        case .refused(.secondFactorNotEnrolled):
            return .forbidden(
                .init(
                    body: .textHtmlCharsetUtf8(
                        .init(
                            LoginPage.error(
                                "A second factor is required: ask a platform admin to run gatewayctl operator totp NAME."
                            )))))
        case .refused(.throttled(let retryAfter)):
            let seconds = max(1, Int((retryAfter.wholeMilliseconds + 999) / 1000))
            return .tooManyRequests(
                .init(
                    headers: .init(retryAfter: seconds),
                    body: .textHtmlCharsetUtf8(.init(again("Too many attempts. Try again in \(seconds) seconds.")))))
        case .refused:
            return .unauthorized(.init(body: .textHtmlCharsetUtf8(.init(again("The name or password is wrong.")))))
        }
    }
}
