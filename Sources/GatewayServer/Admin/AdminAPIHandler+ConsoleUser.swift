import AdminAPI
import Foundation
import GatewayCore
import OpenAPIRuntime

/// The console's user page (issue 64): a user and its passkeys, read and removed through the
/// admin service with the session's call, so the roles, the refusals and the audit trail are
/// the admin API's.
extension AdminAPIHandler {
    func consoleUser(_ input: Operations.ConsoleUser.Input) async throws -> Operations.ConsoleUser.Output {
        guard TenantID.isValid(input.path.tenant) else { throw AdminError.badRequest("tenant is not a tenant id") }
        try AdminInput.check(input.query.username, max: 200, "username")
        try AdminInput.check(input.query.done, max: 16, "done", empty: true)
        guard let signedIn = try await consoleCall() else {
            return .seeOther(.init(headers: .init(location: Self.signInPath)))
        }
        let texts = ConsoleTexts.negotiate(AdminScope.current.headers)
        let notice = input.query.done == "removed" ? texts.format(.done, texts[.removePasskey]) : nil
        let page = try await userPage(
            signedIn, texts, tenantID: input.path.tenant, username: input.query.username, notice: notice)
        let headers = (cacheControl: "no-store", contentSecurityPolicy: ConsolePage.contentSecurityPolicy)
        switch page {
        case .page(let html):
            return .ok(
                .init(
                    headers: .init(cacheControl: headers.0, contentSecurityPolicy: headers.1),
                    body: .textHtmlCharsetUtf8(.init(html))))
        case .refused(let html):
            return .forbidden(
                .init(
                    headers: .init(cacheControl: headers.0, contentSecurityPolicy: headers.1),
                    body: .textHtmlCharsetUtf8(.init(html))))
        case .missing(let html):
            return .notFound(
                .init(
                    headers: .init(cacheControl: headers.0, contentSecurityPolicy: headers.1),
                    body: .textHtmlCharsetUtf8(.init(html))))
        }
    }

    func consoleRemoveUserPasskey(
        _ input: Operations.ConsoleRemoveUserPasskey.Input
    ) async throws -> Operations.ConsoleRemoveUserPasskey.Output {
        guard TenantID.isValid(input.path.tenant) else { throw AdminError.badRequest("tenant is not a tenant id") }
        guard case .urlEncodedForm(let form) = input.body else { throw AdminError.badRequest("a form body") }
        for (value, max, name) in [
            (form.csrfToken, 64, "csrf_token"), (form.username, 200, "username"), (form.passkey, 1_400, "passkey"),
        ] {
            try AdminInput.check(value, max: max, name, empty: true)
        }
        guard let username = form.username, !username.isEmpty, let passkey = form.passkey, !passkey.isEmpty else {
            throw AdminError.badRequest("username and passkey are required")
        }
        guard let signedIn = try await consoleCall() else {
            return .seeOther(.init(headers: .init(location: Self.signInPath)))
        }
        let texts = ConsoleTexts.negotiate(AdminScope.current.headers)
        let headers = (cacheControl: "no-store", contentSecurityPolicy: ConsolePage.contentSecurityPolicy)
        let refusal = { (text: String) in
            ConsolePage.message(
                texts, title: texts[.refused], text: text,
                link: (ConsoleUserPage.path(tenantID: input.path.tenant, username: username), username))
        }
        guard let token = form.csrfToken, ConstantTime.equals(token, signedIn.session.csrf) else {
            return .forbidden(
                .init(
                    headers: .init(cacheControl: headers.0, contentSecurityPolicy: headers.1),
                    body: .textHtmlCharsetUtf8(.init(refusal(texts[.refusedFormText])))))
        }
        do {
            try await service.removeUserPasskey(
                signedIn.call, tenantID: input.path.tenant, username: username, passkeyID: passkey)
        } catch let error as AdminError {
            let html = refusal(texts.refusal(error))
            switch error {
            case .forbidden:
                return .forbidden(
                    .init(
                        headers: .init(cacheControl: headers.0, contentSecurityPolicy: headers.1),
                        body: .textHtmlCharsetUtf8(.init(html))))
            case .tenantNotFound, .userNotFound, .passkeyNotFound:
                return .notFound(
                    .init(
                        headers: .init(cacheControl: headers.0, contentSecurityPolicy: headers.1),
                        body: .textHtmlCharsetUtf8(.init(html))))
            default: throw error
            }
        }
        return .seeOther(
            .init(
                headers: .init(
                    location: ConsoleUserPage.path(tenantID: input.path.tenant, username: username, done: "removed"))))
    }

    /// The user page with `notice` above it; the remove buttons only for `user:update`.
    private func userPage(
        _ signedIn: ConsoleCall, _ texts: ConsoleTexts, tenantID: String, username: String, notice: String?
    ) async throws -> ConsolePageResult {
        let call = signedIn.call
        do {
            let user = try await service.user(call, tenantID: tenantID, username: username)
            let passkeys = try await service.userPasskeys(call, tenantID: tenantID, username: username)
            let canRemove =
                AdminAuthorizer.decide(
                    AdminPermission(.update, .user), tenantID: tenantID, bindings: call.session.bindings) == .allowed
            let body = ConsoleUserPage.body(
                texts, user: user, passkeys: passkeys, tenantID: tenantID,
                csrf: canRemove ? signedIn.session.csrf : nil, notice: notice)
            return .page(signedIn.page(texts, title: "\(texts[.user]) \(username)", section: nil, body: body))
        } catch let error as AdminError {
            let html = ConsolePage.message(
                texts, title: texts[.refused], text: texts.refusal(error), link: ("/console/t/\(tenantID)", tenantID))
            switch error {
            case .forbidden: return .refused(html)
            case .tenantNotFound, .userNotFound: return .missing(html)
            default: throw error
            }
        }
    }
}
