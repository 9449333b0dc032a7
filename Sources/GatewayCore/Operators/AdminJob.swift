import Foundation

/// A long admin action that runs after its request answered (issue 48): a user import,
/// whose scrypt hashing takes minutes. Its progress is kept in the database, so any replica
/// answers how far it is; a job whose replica stopped is seen as interrupted.
public struct AdminJob: Sendable, Equatable {
    public enum State: String, Sendable, Codable {
        case running
        case succeeded
        case failed
        /// Still `running` in the database, but not heard from in ``AdminJob/heartbeat``:
        /// the replica that ran it stopped. Nothing of it was written (imports write at the end).
        case interrupted
    }

    /// A running job updates at least this often; twice as long without an update is interruption.
    public static let heartbeat: TimeInterval = 60

    public var id: String
    public var tenantID: String
    /// `user-import`.
    public var kind: String
    public var state: State
    public var total: Int
    public var done: Int
    /// What a finished job produced (a user import: `{"imported", "subjects"}`).
    public var result: JSONValue?
    /// Why a job failed: a stable problem code and its detail.
    public var errorCode: String?
    public var errorDetail: String?
    /// Who started it.
    public var operatorName: String
    public var createdAt: Date
    public var updatedAt: Date

    public init(
        id: String = RandomUUID.lowercased(), tenantID: String, kind: String, state: State = .running, total: Int,
        done: Int = 0, result: JSONValue? = nil, errorCode: String? = nil, errorDetail: String? = nil,
        operatorName: String, createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.tenantID = tenantID
        self.kind = kind
        self.state = state
        self.total = total
        self.done = done
        self.result = result
        self.errorCode = errorCode
        self.errorDetail = errorDetail
        self.operatorName = operatorName
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// The job as a reader at `now` should see it: a running job not updated in two
    /// heartbeats is interrupted.
    public func seen(at now: Date) -> AdminJob {
        guard state == .running, now.timeIntervalSince(updatedAt) > 2 * Self.heartbeat else { return self }
        var job = self
        job.state = .interrupted
        return job
    }
}

/// Admin jobs by id within their tenant, in the database every replica shares. Finished jobs
/// are kept a week (each new job drops older finished ones of its tenant).
public protocol AdminJobStore: Sendable {
    /// Stores a new job.
    func create(_ job: AdminJob) async throws
    /// Records progress of a running job.
    func progress(id: String, done: Int, now: Date) async throws
    /// Records the end of a job: its state, result or error.
    func finish(_ job: AdminJob) async throws
    /// The job `id` of `tenantID`; nil: none.
    func job(id: String, tenantID: String) async throws -> AdminJob?
}

/// Jobs as both engines store them: the result as JSON text.
package enum AdminJobRows {
    package static let retention: TimeInterval = 7 * 86_400

    package static func job(
        id: String, tenantID: String, kind: String, state: String, total: Int64, done: Int64, result: String?,
        errorCode: String?, errorDetail: String?, operatorName: String, createdAtMs: Int64, updatedAtMs: Int64
    ) throws -> AdminJob {
        AdminJob(
            id: id, tenantID: tenantID, kind: kind, state: AdminJob.State(rawValue: state) ?? .failed,
            total: Int(total),
            done: Int(done), result: try result.map { try JSONValue.decode(Data($0.utf8)) }, errorCode: errorCode,
            errorDetail: errorDetail, operatorName: operatorName, createdAt: StoreClock.date(createdAtMs),
            updatedAt: StoreClock.date(updatedAtMs))
    }

    package static func text(_ value: JSONValue?) throws -> String? {
        try value.map { String(decoding: try $0.encoded(), as: UTF8.self) }
    }
}
