import AdminAPI
import Foundation
import GatewayCore
import OpenAPIRuntime

/// The tenant page's configuration form (issue 49): the fields that differ become a merge
/// patch through the admin service at the revision the page showed, so the change is
/// authorized, validated and audited as the API's `PATCH` is.
extension AdminAPIHandler {
    func consoleUpdateTenant(
        _ input: Operations.ConsoleUpdateTenant.Input
    ) async throws -> Operations.ConsoleUpdateTenant.Output {
        guard TenantID.isValid(input.path.tenant) else { throw AdminError.badRequest("tenant is not a tenant id") }
        guard case .urlEncodedForm(let form) = input.body else { throw AdminError.badRequest("a form body") }
        // The generated form is Codable by its wire names: read it back as name → text.
        let posted = try JSONDecoder().decode([String: String].self, from: JSONEncoder().encode(form))
        try AdminInput.check(form.csrfToken, max: 64, "csrf_token", empty: true)
        try AdminInput.check(form.revision, max: 19, "revision", empty: true)
        for (field, kind) in ConsoleTenantSettingsForm.fields {
            let name = ConsoleTenantSettingsForm.name(field)
            try AdminInput.check(posted[name], max: ConsoleTenantSettingsForm.maxLength(field, kind), name, empty: true)
        }
        guard let revision = form.revision.flatMap({ Int64($0) }) else {
            throw AdminError.badRequest("revision is required")
        }
        guard let signedIn = try await consoleCall() else {
            return .seeOther(.init(headers: .init(location: Self.signInPath)))
        }
        let texts = ConsoleTexts.negotiate(AdminScope.current.headers)
        let tenantID = input.path.tenant
        typealias Output = Operations.ConsoleUpdateTenant.Output
        // The page with its status: a refusal is 403 and a missing tenant 404 whatever was meant.
        let answer = { (status: Int, result: ConsolePageResult) -> Output in
            let (code, html): (Int, String) =
                switch result {
                case .page(let page): (status, page)
                case .refused(let page): (403, page)
                case .missing(let page): (404, page)
                }
            let (cache, policy, body) = ("no-store", ConsolePage.contentSecurityPolicy, OpenAPIRuntime.HTTPBody(html))
            switch code {
            case 403:
                return .forbidden(
                    .init(
                        headers: .init(cacheControl: cache, contentSecurityPolicy: policy),
                        body: .textHtmlCharsetUtf8(body)))
            case 404:
                return .notFound(
                    .init(
                        headers: .init(cacheControl: cache, contentSecurityPolicy: policy),
                        body: .textHtmlCharsetUtf8(body)))
            case 412:
                return .preconditionFailed(
                    .init(
                        headers: .init(cacheControl: cache, contentSecurityPolicy: policy),
                        body: .textHtmlCharsetUtf8(body)))
            case 422:
                return .unprocessableContent(
                    .init(
                        headers: .init(cacheControl: cache, contentSecurityPolicy: policy),
                        body: .textHtmlCharsetUtf8(body)))
            default:
                return .ok(
                    .init(
                        headers: .init(cacheControl: cache, contentSecurityPolicy: policy),
                        body: .textHtmlCharsetUtf8(body)))
            }
        }
        guard let token = form.csrfToken, ConstantTime.equals(token, signedIn.session.csrf) else {
            return answer(
                403,
                .page(
                    signedIn.page(
                        texts, title: texts[.refused], section: nil,
                        body: "<p class=\"error\" role=\"alert\">\(ConsolePage.escape(texts[.refusedFormText]))</p>")))
        }
        let page = {
            (notice: (text: String, error: Bool)?, posted: [String: String]?, problems: [TenantValidationError]) in
            try await self.tenantPage(
                signedIn, texts, tenantID: tenantID, notice: notice, posted: posted, problems: problems)
        }
        do {
            let tenant = try await service.tenant(signedIn.call, id: tenantID)
            // A post the roles do not allow is refused (and recorded) before its fields are read,
            // whatever it holds: the whole form, one forged field, or nothing that differs.
            let bindings = signedIn.call.session.bindings
            if AdminAuthorizer.decide(AdminPermission(.update, .tenant), tenantID: tenantID, bindings: bindings)
                != .allowed
            {
                // The service refuses before anything else (and records the refusal).
                _ = try await service.updateTenant(signedIn.call, id: tenantID, patch: TenantPatch(), revision: revision)
            }
            let (patch, unreadable) = ConsoleTenantSettingsForm.patch(posted, tenant: tenant)
            if !unreadable.isEmpty {
                return answer(422, try await page(nil, posted, unreadable))
            }
            guard let patch else {
                return answer(200, try await page((texts[.noDifference], false), nil, []))
            }
            let problems = patch.problems(applyingTo: tenant, now: clock.now())
            do {
                _ = try await service.updateTenant(signedIn.call, id: tenantID, patch: patch, revision: revision)
            } catch AdminError.invalidTenant(let why) {
                return answer(422, try await page((problems.isEmpty ? why : texts[.notSaved], true), posted, problems))
            } catch AdminError.preconditionFailed {
                let last = try? await service.tenantLastChange(signedIn.call, id: tenantID)
                let text = texts.format(
                    .tenantChangedBy, last?.actor ?? "?", last.map { RFC3339.string(from: $0.at) } ?? "?")
                return answer(412, try await page((text, true), nil, []))
            }
        } catch let error as AdminError {
            switch error {
            case .forbidden, .tenantNotFound:
                return answer(403, try await page((texts.refusal(error), true), nil, []))
            default: throw error
            }
        }
        return .seeOther(.init(headers: .init(location: "/console/t/\(tenantID)?done=saved")))
    }
}
