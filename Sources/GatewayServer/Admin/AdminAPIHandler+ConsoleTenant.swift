import AdminAPI
import Foundation
import GatewayCore
import OpenAPIRuntime

/// The console's tenant page (issue 49): every section read through the admin service with
/// the session's call, each only when the operator's roles allow reading it (checked first,
/// so a hidden section leaves no refusal in the audit trail).
extension AdminAPIHandler {
    func consoleTenant(_ input: Operations.ConsoleTenant.Input) async throws -> Operations.ConsoleTenant.Output {
        guard TenantID.isValid(input.path.tenant) else { throw AdminError.badRequest("tenant is not a tenant id") }
        guard let signedIn = try await consoleCall() else {
            return .seeOther(.init(headers: .init(location: Self.signInPath)))
        }
        let texts = ConsoleTexts.negotiate(AdminScope.current.headers)
        let (tenantID, call) = (input.path.tenant, signedIn.call)
        let allowed = { (permission: AdminPermission) in
            AdminAuthorizer.decide(permission, tenantID: tenantID, bindings: call.session.bindings) == .allowed
        }
        let body: String
        do {
            let tenant = try await service.tenant(call, id: tenantID)
            var sections = ConsoleTenantPage.Sections(
                tenant: tenant, canReadNotifications: allowed(AdminPermission(.read, .notification)))
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
            body = try ConsoleTenantPage.body(texts, sections)
        } catch let error as AdminError {
            let html = ConsolePage.message(
                texts, title: texts[.refused], text: "\(error)", link: ("/console", texts[.overview]))
            let headers = Operations.ConsoleTenant.Output.Forbidden.Headers(
                cacheControl: "no-store", contentSecurityPolicy: ConsolePage.contentSecurityPolicy)
            switch error {
            case .forbidden: return .forbidden(.init(headers: headers, body: .textHtmlCharsetUtf8(.init(html))))
            case .tenantNotFound:
                return .notFound(
                    .init(
                        headers: .init(
                            cacheControl: headers.cacheControl, contentSecurityPolicy: headers.contentSecurityPolicy),
                        body: .textHtmlCharsetUtf8(.init(html))))
            default: throw error
            }
        }
        let html = signedIn.page(texts, title: "\(texts[.tenant]) \(tenantID)", section: nil, body: body)
        return .ok(
            .init(
                headers: .init(cacheControl: "no-store", contentSecurityPolicy: ConsolePage.contentSecurityPolicy),
                body: .textHtmlCharsetUtf8(.init(html))))
    }
}
