import AdminAPI
import Foundation
import GatewayCore
import OpenAPIRuntime

/// The console's audit record page (issue 49).
extension AdminAPIHandler {
    func consoleAuditRecord(
        _ input: Operations.ConsoleAuditRecord.Input
    ) async throws -> Operations.ConsoleAuditRecord.Output {
        guard let id = Int64(input.path.id), id > 0 else { throw AdminError.badRequest("id is a record's number") }
        guard let signedIn = try await consoleCall() else {
            return .seeOther(.init(headers: .init(location: Self.signInPath)))
        }
        let texts = ConsoleTexts.negotiate(AdminScope.current.headers)
        let (noStore, policy) = ("no-store", ConsolePage.contentSecurityPolicy)
        let found: (record: AuditRecord, link: AuditVerifier.Break?)
        do {
            found = try await service.auditRecord(signedIn.call, id: id)
        } catch let error as AdminError {
            let html = OpenAPIRuntime.HTTPBody(
                ConsolePage.message(
                    texts, title: texts[.refused], text: texts.refusal(error), link: ("/console/audit", texts[.audit])))
            switch error {
            case .forbidden:
                return .forbidden(
                    .init(
                        headers: .init(cacheControl: noStore, contentSecurityPolicy: policy),
                        body: .textHtmlCharsetUtf8(html)))
            case .tenantNotFound, .auditRecordNotFound:
                return .notFound(
                    .init(
                        headers: .init(cacheControl: noStore, contentSecurityPolicy: policy),
                        body: .textHtmlCharsetUtf8(html)))
            default: throw error
            }
        }
        let body = ConsoleAuditPage.body(texts, record: found.record, link: found.link)
        let html = signedIn.page(texts, title: texts.format(.auditRecord, String(id)), section: .audit, body: body)
        return .ok(
            .init(
                headers: .init(cacheControl: noStore, contentSecurityPolicy: policy),
                body: .textHtmlCharsetUtf8(.init(html))))
    }
}
