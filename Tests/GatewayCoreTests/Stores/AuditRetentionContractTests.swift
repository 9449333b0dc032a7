import Foundation
import Logging
import Testing

@testable import GatewayCore

/// Retention of the audit trail on both engines (issue 48): records older than the setting
/// go, a signed checkpoint takes their place, and the chain still verifies from it; a broken
/// chain is never pruned, and an altered, forged or removed checkpoint is named.
@Suite("Audit retention contract")
struct AuditRetentionContractTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let day: TimeInterval = 86_400
    static let signer = AuditCheckpointSigner(masterKey: .generate())

    /// `count` records in `chain`, one a day from ``start``.
    static func fill(
        _ trail: any AuditTrail, chain: String, count: Int, from offset: Int = 0
    ) async throws -> [AuditRecord] {
        var records: [AuditRecord] = []
        for index in offset..<(offset + count) {
            records.append(
                try await trail.append(
                    AuditDraft(
                        time: start.addingTimeInterval(Double(index) * day), actor: .local(user: "root"), verb: .update,
                        resource: AuditResource(type: .tenant, tenant: chain, id: "r\(index)"), outcome: .ok)))
        }
        return records
    }

    static func retention(_ trail: any AuditTrail, at now: Date, keepDays: Int = 1, batch: Int = 2) -> AuditRetention {
        AuditRetention(
            trail: trail, signer: signer, keepDays: keepDays, batch: batch, clock: { now },
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
    }

    @Test(arguments: StoreBackend.available)
    func prunedHeadVerifiesFromItsCheckpoint(backend: StoreBackend) async throws {
        let database = try await TestDatabase.make(backend)
        defer { database.remove() }
        let trail = database.stores.audit
        let acme = try await Self.fill(trail, chain: "acme", count: 10)
        let platform = try await Self.fill(trail, chain: AuditChain.platform, count: 3)
        // At day 6.5, keeping one day: records of days 0-5 go (batches of 2), 6-9 stay.
        let now = Self.start.addingTimeInterval(6.5 * Self.day)
        var progress: [String: Int] = [:]
        let report = try await Self.retention(trail, at: now).prune { progress[$0] = $1 }
        #expect(report.removed == 6 + 2 && report.refused.isEmpty)
        #expect(report.checkpointed.sorted() == [AuditChain.platform, "acme"].sorted() && progress["acme"] == 6)
        #expect(try await database.integer("SELECT COUNT(*) FROM audit_records WHERE chain = 'acme'") == 4)
        // The platform chain keeps its newest record whatever its age.
        #expect(
            try await trail.rows(chain: AuditChain.platform, afterSequence: 0, limit: 10).map(\.id) == [platform[2].id])

        let checkpoint = try #require(try await trail.checkpoint(chain: "acme"))
        #expect(checkpoint.sequence == 6 && checkpoint.hash == acme[5].hash && checkpoint.timeMs == acme[5].timeMs)
        #expect(checkpoint.prunedAtMs == StoreClock.milliseconds(now) && Self.signer.holds(checkpoint))
        let verified = try await AuditVerifier.verify(trail, chain: "acme", signer: Self.signer)
        #expect(verified.broken == nil && verified.intactRecords == 4 && verified.checkpoint == checkpoint)
        // Appending goes on after the pruned head; the chain still verifies.
        _ = try await Self.fill(trail, chain: "acme", count: 1, from: 10)
        #expect(try await AuditVerifier.verify(trail, chain: "acme", signer: Self.signer).intactRecords == 5)
        // Without the key a checkpoint cannot be trusted; with another key it does not hold.
        #expect(try await AuditVerifier.verify(trail, chain: "acme").broken?.recordID == nil)
        let stranger = AuditCheckpointSigner(masterKey: .generate())
        let forged = try #require(try await AuditVerifier.verify(trail, chain: "acme", signer: stranger).broken)
        #expect(forged.recordID == nil && forged.reason.contains("signature"))

        // A second round at the same time finds nothing new; a replica's older checkpoint never wins.
        #expect(try await Self.retention(trail, at: now).prune() == AuditRetention.Report())
        try await trail.saveCheckpoint(
            try Self.signer.checkpoint(after: try #require(AuditRow.from(acme[2])), prunedAt: now))
        #expect(try await trail.checkpoint(chain: "acme") == checkpoint)
    }

    @Test(arguments: StoreBackend.available)
    func tamperingAroundACheckpointIsNamed(backend: StoreBackend) async throws {
        let database = try await TestDatabase.make(backend)
        defer { database.remove() }
        let trail = database.stores.audit
        let acme = try await Self.fill(trail, chain: "acme", count: 8)
        _ = try await Self.retention(trail, at: Self.start.addingTimeInterval(4.5 * Self.day)).prune()
        #expect(try await AuditVerifier.verify(trail, chain: "acme", signer: Self.signer).intactRecords == 4)

        // Moving the checkpoint past a removed record (without the key to sign it).
        try await database.execute("DELETE FROM audit_records WHERE id = \(acme[4].id)")
        try await database.execute(
            "UPDATE audit_checkpoints SET sequence = 5, hash = '\(acme[4].hash)' WHERE chain = 'acme'")
        let moved = try #require(try await AuditVerifier.verify(trail, chain: "acme", signer: Self.signer).broken)
        #expect(moved.recordID == nil && moved.sequence == 5 && moved.reason.contains("signature"))
        // Removing the checkpoint too: the chain no longer starts at 1.
        try await database.execute("DELETE FROM audit_checkpoints WHERE chain = 'acme'")
        let headless = try #require(try await AuditVerifier.verify(trail, chain: "acme", signer: Self.signer).broken)
        #expect(headless.recordID == acme[5].id && headless.reason.contains("sequence 1 is missing"))
    }

    /// The console's record page checks one record in three rows: its seal, the record
    /// before it (or the checkpoint) and the record after it.
    @Test(arguments: StoreBackend.available)
    func oneRecordsLinkIsCheckedWithoutAWalk(backend: StoreBackend) async throws {
        let database = try await TestDatabase.make(backend)
        defer { database.remove() }
        let trail = database.stores.audit
        let acme = try await Self.fill(trail, chain: "acme", count: 8)
        for sequence in [1, 4, 8] as [Int64] {
            #expect(try await AuditVerifier.link(trail, chain: "acme", sequence: sequence) == nil)
        }
        _ = try await Self.retention(trail, at: Self.start.addingTimeInterval(2.5 * Self.day)).prune()
        #expect(try await trail.checkpoint(chain: "acme")?.sequence == 2)
        #expect(try await AuditVerifier.link(trail, chain: "acme", sequence: 3) == nil, "it follows the checkpoint")

        try await database.execute("UPDATE audit_records SET body = REPLACE(body, 'r4', 'rX') WHERE id = \(acme[4].id)")
        let altered = try #require(try await AuditVerifier.link(trail, chain: "acme", sequence: 5))
        #expect(altered.recordID == acme[4].id && altered.reason.contains("altered"))
        let before = try #require(try await AuditVerifier.link(trail, chain: "acme", sequence: 4))
        #expect(before.recordID == acme[4].id && before.reason.hasPrefix("the record after it altered"))
        try await database.execute("DELETE FROM audit_records WHERE id = \(acme[6].id)")
        let orphan = try #require(try await AuditVerifier.link(trail, chain: "acme", sequence: 8))
        #expect(orphan.reason.contains("sequence 7 is missing"))
        #expect(try await AuditVerifier.link(trail, chain: "acme", sequence: 7)?.reason.contains("not in its chain") == true)
    }

    @Test(arguments: StoreBackend.available)
    func aBrokenChainIsNeverPruned(backend: StoreBackend) async throws {
        let database = try await TestDatabase.make(backend)
        defer { database.remove() }
        let trail = database.stores.audit
        let beta = try await Self.fill(trail, chain: "beta", count: 6)
        _ = try await Self.fill(trail, chain: "gamma", count: 6)
        try await database.execute("UPDATE audit_records SET body = REPLACE(body, 'r2', 'rX') WHERE id = \(beta[2].id)")
        let report = try await Self.retention(trail, at: Self.start.addingTimeInterval(30 * Self.day)).prune()
        #expect(report.refused.map(\.chain) == ["beta"] && report.refused.first?.broken?.recordID == beta[2].id)
        #expect(report.checkpointed == ["gamma"] && report.removed == 5)
        #expect(try await database.integer("SELECT COUNT(*) FROM audit_records WHERE chain = 'beta'") == 6)
        #expect(try await trail.checkpoint(chain: "beta") == nil)
    }

    /// A replica that saved its checkpoint and stopped before deleting: the rows it covers are
    /// skipped by the verifier and removed by the next round.
    @Test(arguments: StoreBackend.available)
    func rowsLeftUnderACheckpointAreSkippedThenRemoved(backend: StoreBackend) async throws {
        let database = try await TestDatabase.make(backend)
        defer { database.remove() }
        let trail = database.stores.audit
        let acme = try await Self.fill(trail, chain: "acme", count: 5)
        let now = Self.start.addingTimeInterval(10 * Self.day)
        try await trail.saveCheckpoint(
            try Self.signer.checkpoint(after: try #require(AuditRow.from(acme[2])), prunedAt: now))
        #expect(try await AuditVerifier.verify(trail, chain: "acme", signer: Self.signer).intactRecords == 2)
        let report = try await Self.retention(trail, at: Self.start.addingTimeInterval(2.5 * Self.day)).prune()
        #expect(report.removed == 3 && report.checkpointed.isEmpty)
        #expect(try await trail.rows(chain: "acme", afterSequence: 0, limit: 10).map(\.sequence) == [4, 5])
    }
}

extension AuditRow {
    /// The row a record was read from (tests build checkpoints from records).
    static func from(_ record: AuditRecord) -> AuditRow? {
        AuditRow(
            id: record.id, chain: record.chain, sequence: record.sequence, timeMs: record.timeMs,
            subject: record.actor.subject, verb: record.verb.rawValue, resourceType: record.resource.type.rawValue,
            resourceID: record.resource.id, body: "", hash: record.hash)
    }
}
