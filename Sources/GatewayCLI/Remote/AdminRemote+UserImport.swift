import AdminAPI
import Foundation
import GatewayCore

/// `user import` over the admin API: the entries go in one request, the gateway hashes and
/// writes them as a job, and gatewayctl follows its progress until it ends.
extension AdminRemote {
    /// Imports `entries` into `tenantID`; answers the job's report. `passwords` is how many
    /// the job hashes (its progress line's total).
    func importUsers(
        tenantID: String, entries: [UserImportEntry], passwords: Int, context: CLIContext,
        poll: Duration = .milliseconds(500)
    ) async throws -> UserImportReport {
        let users = try Self.document(entries, as: [Components.Schemas.UserImportEntry].self)
        let started = try await client.adminStartUserImport(
            path: .init(tenant: tenantID), body: .json(.init(users: users)))
        guard case .accepted(let accepted) = started else { throw Self.refusal(started) }
        var job = try accepted.body.json
        let progress = ProgressLine("hashing passwords", total: passwords, context: context)
        var shown = 0
        while job.state == .running {
            try await Task.sleep(for: poll)
            let read = try await client.adminGetUserImport(path: .init(tenant: tenantID, job: job.id))
            guard case .ok(let ok) = read else { throw Self.refusal(read) }
            job = try ok.body.json
            progress.advance(by: job.done - shown)
            shown = job.done
        }
        progress.finish()
        switch job.state {
        case .succeeded:
            guard let result = job.result else { throw CLIError.failure("the import job ended without its report") }
            return try Self.document(result, as: UserImportReport.self)
        case .interrupted:
            throw CLIError.failure(
                "the import job \(job.id) was interrupted (its gateway stopped); nothing was imported")
        default:
            let error = job.error
            throw CLIError.invalid(
                "\(error?.detail ?? "the import failed") (\(error?.code ?? "import_failed")); nothing was imported")
        }
    }
}
