import Foundation
import Testing
@testable import GatewayCore

/// The courier outbox on both engines (issue 63 §4): messages sealed at rest, leased claims
/// that replicas share, retries that wait their turn, the dead letter and the expired, the
/// operators' list newest first with masked recipients.
@Suite("Courier outbox contract")
struct CourierOutboxContractTests {
    static func message(_ id: String, to: String = "ken@acme.example", channel: CourierMessage.Channel = .email, at: Date)
        -> CourierMessage
    {
        CourierMessage(
            tenantID: "acme", id: id, channel: channel, purpose: "verify-email", to: to, subject: "Your code",
            text: "Your code is 493021", createdAt: at, expiresAt: at.addingTimeInterval(600))
    }

    static func withOutbox(_ backend: StoreBackend, _ body: (TestDatabase) async throws -> Void) async throws {
        let database = try await TestDatabase.make(backend)
        defer { database.remove() }
        try await database.stores.tenants.create(Tenant(id: "acme", displayName: "Acme"), actor: "t")
        try await body(database)
    }

    @Test(arguments: StoreBackend.available) func claimRetrySendAndList(backend: StoreBackend) async throws {
        try await Self.withOutbox(backend) { database in
            let outbox = database.stores.courier
            let t0 = Date(timeIntervalSince1970: 1_800_000_000)
            try await outbox.enqueue(Self.message("m1", at: t0))
            try await outbox.enqueue(Self.message("m2", to: "+819012345678", channel: .sms, at: t0.addingTimeInterval(1)))
            // Sealed at rest: neither the code nor the recipients are in the database's bytes.
            let bytes = try await database.bytesAtRest()
            for secret in ["493021", "ken@acme.example", "+819012345678"] {
                #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(secret) at rest")
            }

            let now = t0.addingTimeInterval(2)
            let claimed = try await outbox.claim(limit: 10, lease: .seconds(60), now: now)
            #expect(claimed.map(\.message) == [Self.message("m1", at: t0), Self.message("m2", to: "+819012345678", channel: .sms, at: t0.addingTimeInterval(1))])
            #expect(claimed.allSatisfy { $0.attempts == 0 })
            // Leased: another replica's claim finds nothing until the lease runs out.
            let other = try await database.another()
            #expect(try await other.courier.claim(limit: 10, lease: .seconds(60), now: now).isEmpty)

            try await outbox.record(
                [CourierResult(.retry(at: now.addingTimeInterval(30), reason: "connection refused"), of: claimed[0]),
                 CourierResult(.failed(reason: "550 no such user"), of: claimed[1])], now: now)
            #expect(try await outbox.claim(limit: 10, lease: .seconds(60), now: now.addingTimeInterval(29)).isEmpty)
            let again = try await other.courier.claim(limit: 10, lease: .seconds(60), now: now.addingTimeInterval(30))
            #expect(again.map(\.message.id) == ["m1"] && again.first?.attempts == 1)
            try await other.courier.record([CourierResult(.sent, of: again[0])], now: now.addingTimeInterval(31))
            // A late record of an ended message changes nothing.
            try await outbox.record([CourierResult(.failed(reason: "late"), of: claimed[0])], now: now.addingTimeInterval(32))

            let listed = try await outbox.messages(tenantID: "acme", state: nil, before: nil, limit: 10)
            #expect(listed.map(\.id) == ["m2", "m1"], "newest first")
            #expect(listed.map(\.state) == [.failed, .sent] && listed.map(\.attempts) == [1, 2])
            #expect(listed.map(\.recipient) == ["+81…5678", "k…@acme.example"])
            #expect(listed[0].lastError == "550 no such user" && listed[1].lastError == nil)
            let page = try await outbox.messages(tenantID: "acme", state: nil, before: listed[0].cursor, limit: 10)
            #expect(page.map(\.id) == ["m1"])
            #expect(try await outbox.messages(tenantID: "acme", state: .failed, before: nil, limit: 10).map(\.id) == ["m2"])
            #expect(try await outbox.messages(tenantID: "other", state: nil, before: nil, limit: 10).isEmpty)
            #expect(try await outbox.backlog(now: now).isEmpty)
        }
    }

    @Test(arguments: StoreBackend.available) func expiredReleasedAndPurged(backend: StoreBackend) async throws {
        try await Self.withOutbox(backend) { database in
            let outbox = database.stores.courier
            let t0 = Date(timeIntervalSince1970: 1_800_000_000)
            try await outbox.enqueue(Self.message("old", at: t0))
            try await outbox.enqueue(Self.message("new", at: t0.addingTimeInterval(400)))
            let backlog = try await outbox.backlog(now: t0.addingTimeInterval(500))
            #expect(backlog == [CourierBacklogEntry(tenantID: "acme", channel: .email, pending: 2, oldestDueAt: t0)])

            // The first code expired (600 s): it ends at claim time, never sent.
            let later = t0.addingTimeInterval(601)
            let claimed = try await outbox.claim(limit: 10, lease: .seconds(60), now: later)
            #expect(claimed.map(\.message.id) == ["new"])
            #expect(try await outbox.messages(tenantID: "acme", state: .expired, before: nil, limit: 10).map(\.id) == ["old"])
            // Released: claimable at once, attempts unchanged.
            try await outbox.release(claimed)
            let retaken = try await outbox.claim(limit: 10, lease: .seconds(60), now: later)
            #expect(retaken.map(\.message.id) == ["new"] && retaken.first?.attempts == 0)

            // Purge takes ended messages only.
            #expect(try await outbox.purge(createdBefore: later, limit: 10) == 1)
            #expect(try await outbox.messages(tenantID: "acme", state: nil, before: nil, limit: 10).map(\.id) == ["new"])
        }
    }

    @Test(arguments: StoreBackend.postgresOnly) func replicasClaimDisjointMessages(backend: StoreBackend) async throws {
        try await Self.withOutbox(backend) { database in
            let t0 = Date(timeIntervalSince1970: 1_800_000_000)
            for index in 0..<40 { try await database.stores.courier.enqueue(Self.message("m\(index)", at: t0)) }
            let replicas = [database.stores, try await database.another(), try await database.another()]
            let claims = try await withThrowingTaskGroup(of: [String].self) { group in
                for replica in replicas {
                    group.addTask {
                        try await replica.courier.claim(limit: 20, lease: .seconds(60), now: t0.addingTimeInterval(1))
                            .map(\.message.id)
                    }
                }
                return try await group.reduce(into: [String]()) { $0 += $1 }
            }
            #expect(claims.count == 40 && Set(claims).count == 40, "each message claimed once")
        }
    }
}
