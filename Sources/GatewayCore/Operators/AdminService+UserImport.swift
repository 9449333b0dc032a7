import Foundation

/// What a finished user import reports (the job's result; `user import --json` prints it on
/// both paths): how many users, and each one's subject by username.
public struct UserImportReport: Codable, Sendable, Equatable {
    public var imported: Int
    public var subjects: [String: String]

    public init(imported: Int, subjects: [String: String]) {
        self.imported = imported
        self.subjects = subjects
    }
}

/// User imports on the admin API (issue 48): checked in the request (bad input is 422 and
/// starts nothing), then hashed and written by a job the request answers with at once (202).
extension AdminService {
    /// How many passwords an import hashes at once on the server: scrypt is deliberately
    /// expensive, and the replica keeps serving while it runs.
    static let importHashWidth = 2
    /// How many imports one replica runs at once; another answers 429 `import_busy`.
    public static let concurrentImports = 2

    /// Starts importing `entries` into `tenantID`; answers the running job.
    public func startUserImport(
        _ call: AdminCall, tenantID: String, entries: [UserImportEntry]
    ) async throws -> AdminJob {
        let resource = AuditResource(type: .user, tenant: tenantID, id: nil)
        try await authorize(call, AdminPermission(.create, .user), tenantID: tenantID)
        _ = try await requireTenant(tenantID)
        let signIns: [UserImport.SignIn]
        do {
            signIns = try UserImport.check(entries)
        } catch UserAccountError.invalid(let reason) {
            try await refused(call, .create, resource, AuditOutcome(status: 422, code: "invalid_user"))
            throw AdminError.invalidUser(reason)
        }
        guard importSlots.take() else { throw AdminError.importBusy }
        let now = clock.now()
        let job = AdminJob(
            tenantID: tenantID, kind: "user-import", total: UserImport.passwordCount(signIns),
            operatorName: call.session.caller.name, createdAt: now, updatedAt: now)
        do {
            try await jobs.create(job)
        } catch {
            importSlots.give()
            throw error
        }
        let service = self
        Task {
            await service.runUserImport(job, call: call, entries: entries, signIns: signIns)
            service.importSlots.give()
        }
        return job
    }

    /// The job `id` of `tenantID`, as it stands now (404 `job_not_found`).
    public func job(_ call: AdminCall, tenantID: String, id: String) async throws -> AdminJob {
        try await authorize(call, AdminPermission(.read, .user), tenantID: tenantID, resourceID: id)
        guard let job = try await jobs.job(id: id, tenantID: tenantID) else { throw AdminError.jobNotFound(id) }
        return job.seen(at: clock.now())
    }

    /// Hashes, then writes every user in one transaction with a record each; the job ends
    /// `succeeded` with the report or `failed` with a problem code, and nothing written.
    func runUserImport(_ job: AdminJob, call: AdminCall, entries: [UserImportEntry], signIns: [UserImport.SignIn]) async
    {
        var finished = job
        do {
            let step = max(1, job.total / 100)
            let (jobs, clock) = (self.jobs, self.clock)
            let hashes = try await UserImport.hashes(signIns, hasher: hasher, width: Self.importHashWidth) { done in
                guard done % step == 0 || done == job.total else { return }
                try? await jobs.progress(id: job.id, done: done, now: clock.now())
            }
            let users = UserImport.users(entries, hashes: hashes, tenantID: job.tenantID)
            let time = clock.now()
            try await self.users.addUsers(users) { stored in
                UserTrail.draft(
                    nil, stored, actor: call.actor, requestID: call.requestID, verb: .create, time: time,
                    outcome: .created)
            }
            let report = UserImportReport(
                imported: users.count,
                subjects: Dictionary(uniqueKeysWithValues: users.map { ($0.username, $0.subject) }))
            finished.state = .succeeded
            finished.done = job.total
            finished.result = try JSONValue.decode(JSONEncoder().encode(report))
        } catch AuthStoreError.alreadyExists {
            (finished.state, finished.errorCode) = (.failed, "user_exists")
            finished.errorDetail = "a username or subject of the import is taken in the tenant; nothing was imported"
        } catch {
            (finished.state, finished.errorCode) = (.failed, "import_failed")
            finished.errorDetail = "the import stopped (\(String(describing: error).prefix(200))); nothing was imported"
        }
        finished.updatedAt = clock.now()
        try? await jobs.finish(finished)
    }
}
