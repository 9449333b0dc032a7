import AdminAPI
import Foundation
import GatewayCore

/// User imports as jobs on the admin API.
extension AdminAPIHandler {
    func adminStartUserImport(
        _ input: Operations.AdminStartUserImport.Input
    ) async throws -> Operations.AdminStartUserImport.Output {
        guard case .json(let body) = input.body else { throw AdminError.badRequest("a JSON body") }
        try AdminInput.check(body.users, maxItems: UserImport.maximumCount, "users")
        for user in body.users {
            let bounds: [(String?, Int, String)] = [
                (user.username, 200, "username"), (user.subject, 255, "subject"), (user.name, 200, "name"),
                (user.email, 320, "email"), (user.picture, 2048, "picture"), (user.password, 1024, "password"),
                (user.passwordHash, 300, "passwordHash"),
            ]
            for (value, max, name) in bounds { try AdminInput.check(value, max: max, name, empty: true) }
        }
        let entries = try Self.wire(body.users, as: [UserImportEntry].self)
        let job = try await service.startUserImport(
            try AdminScope.call(), tenantID: input.path.tenant, entries: entries)
        return .accepted(
            .init(
                headers: .init(location: "/admin/v1/tenants/\(job.tenantID)/user-imports/\(job.id)"),
                body: .json(try Self.view(job))))
    }

    func adminGetUserImport(
        _ input: Operations.AdminGetUserImport.Input
    ) async throws -> Operations.AdminGetUserImport.Output {
        try AdminInput.check(input.path.job, max: 64, "job")
        let job = try await service.job(try AdminScope.call(), tenantID: input.path.tenant, id: input.path.job)
        return .ok(.init(body: .json(try Self.view(job))))
    }

    static func view(_ job: AdminJob) throws -> Components.Schemas.AdminJobView {
        .init(
            id: job.id, kind: .userImport,
            state: try wire(job.state, as: Components.Schemas.AdminJobView.StatePayload.self),
            total: job.total, done: job.done,
            result: try job.result.map { try wire($0, as: Components.Schemas.UserImportResult.self) },
            error: job.errorCode.map { .init(code: $0, detail: job.errorDetail ?? "") }, _operator: job.operatorName,
            createdAt: job.createdAt, updatedAt: job.updatedAt)
    }
}
