import AdminAPI
import Foundation
import GatewayCore
import OpenAPIRuntime

/// The console's tenant page (issue 49): every section read through the admin service with
/// the session's call, each only when the operator's roles allow reading it (checked first,
/// so a hidden section leaves no refusal in the audit trail), and the configuration form for
/// an operator who may change it.
extension AdminAPIHandler {
    func consoleTenant(_ input: Operations.ConsoleTenant.Input) async throws -> Operations.ConsoleTenant.Output {
        guard TenantID.isValid(input.path.tenant) else { throw AdminError.badRequest("tenant is not a tenant id") }
        try AdminInput.check(input.query.done, max: 16, "done", empty: true)
        guard let signedIn = try await consoleCall() else {
            return .seeOther(.init(headers: .init(location: Self.signInPath)))
        }
        let texts = ConsoleTexts.negotiate(AdminScope.current.headers)
        let notice = (input.query.done == "saved" ? () : nil).map { _ in
            (texts.format(.done, texts[.saveConfiguration]), false)
        }
        let headers = Operations.ConsoleTenant.Output.Ok.Headers(
            cacheControl: "no-store", contentSecurityPolicy: ConsolePage.contentSecurityPolicy)
        switch try await tenantPage(signedIn, texts, tenantID: input.path.tenant, notice: notice) {
        case .page(let html): return .ok(.init(headers: headers, body: .textHtmlCharsetUtf8(.init(html))))
        case .refused(let html):
            return .forbidden(
                .init(
                    headers: .init(
                        cacheControl: headers.cacheControl, contentSecurityPolicy: headers.contentSecurityPolicy),
                    body: .textHtmlCharsetUtf8(.init(html))))
        case .missing(let html):
            return .notFound(
                .init(
                    headers: .init(
                        cacheControl: headers.cacheControl, contentSecurityPolicy: headers.contentSecurityPolicy),
                    body: .textHtmlCharsetUtf8(.init(html))))
        }
    }

    /// The tenant page with `notice` above it; with `posted`, the form shows those values and
    /// `problems` beside their fields.
    func tenantPage(
        _ signedIn: ConsoleCall, _ texts: ConsoleTexts, tenantID: String, notice: (text: String, error: Bool)?,
        posted: [String: String]? = nil, problems: [TenantValidationError] = []
    ) async throws -> ConsolePageResult {
        let call = signedIn.call
        let allowed = { (permission: AdminPermission) in
            AdminAuthorizer.decide(permission, tenantID: tenantID, bindings: call.session.bindings) == .allowed
        }
        do {
            let tenant = try await service.tenant(call, id: tenantID)
            var sections = ConsoleTenantPage.Sections(
                tenant: tenant, canReadNotifications: allowed(AdminPermission(.read, .notification)))
            if allowed(AdminPermission(.update, .tenant)) {
                sections.form = ConsoleTenantSettingsForm.form(
                    texts, tenant: tenant, csrf: signedIn.session.csrf, revision: tenant.configVersion, posted: posted,
                    problems: problems)
            }
            if allowed(AdminPermission(.read, .notification)) {
                sections.courier = try await service.courierMessages(
                    call, tenantID: tenantID, state: nil, cursor: nil, limit: 20
                ).items
            }
            if allowed(AdminPermission(.read, .client)) {
                sections.clients = try await service.clients(call, tenantID: tenantID, cursor: nil, limit: 200).items
            }
            if allowed(AdminPermission(.read, .signingKey)) {
                sections.keys = try await service.signingKeys(
                    call, tenantID: tenantID, state: nil, cursor: nil, limit: 200
                ).items
            }
            if allowed(AdminPermission(.read, .linkDomain)) {
                sections.domains = try await service.linkDomains(call, tenantID: tenantID, cursor: nil, limit: 200)
                    .items
            }
            if allowed(AdminPermission(.read, .release)) {
                sections.releases = try await service.releasePolicies(call, tenantID: tenantID)
            }
            if allowed(AdminPermission(.read, .operator)) {
                let operators = try await service.listOperators(call, cursor: nil, limit: 200).items
                sections.bindings = operators.flatMap { entry in
                    entry.bindings.filter { $0.tenantID == tenantID }.map { (entry.operator.name, $0) }
                }
            }
            var body = try ConsoleTenantPage.body(texts, sections, notice: notice)
            if allowed(AdminPermission(.read, .user)) { body += ConsoleUserPage.findForm(texts, tenantID: tenantID) }
            return .page(signedIn.page(texts, title: "\(texts[.tenant]) \(tenantID)", section: nil, body: body))
        } catch let error as AdminError {
            let html = ConsolePage.message(
                texts, title: texts[.refused], text: notice?.text ?? texts.refusal(error), link: ("/console", texts[.overview]))
            switch error {
            case .forbidden: return .refused(html)
            case .tenantNotFound: return .missing(html)
            default: throw error
            }
        }
    }
}
