import Foundation
import Testing
@testable import GatewayCore

/// The durable revocation list's contract, on every engine.
@Suite("Revocation store contract")
struct RevocationStoreContractTests {
    @Test(arguments: StoreBackend.available) func recordsFollowsAndPurges(backend: StoreBackend) async throws {
        let database = try await TestDatabase.make(backend)
        defer { database.remove() }
        let store = database.stores.revocations
        let reader = try await database.another().revocations
        let now = StoreClock.milliseconds(Date())
        try await store.record("k1", until: now + 60_000)
        try await store.record("k1", until: now + 1_000)  // an earlier end never shortens
        try await store.record("gone", until: now - 1)
        #expect(try await reader.isRecorded("k1", now: now + 30_000))
        #expect(try await reader.isRecorded("gone", now: now) == false)
        #expect(try await reader.isRecorded("never", now: now) == false)

        let (all, cursor) = try await reader.revocations(after: 0, now: now)
        #expect(all == ["k1": now + 60_000])
        // Recorded after the cursor (from another instance): the next poll has it.
        try await store.record("k2", until: now + 90_000)
        let (next, _) = try await reader.revocations(after: cursor, now: now)
        #expect(next["k2"] == now + 90_000)

        #expect(try await store.purge(now: now + 70_000) == 2)
        #expect(try await reader.isRecorded("k2", now: now + 70_000))
        #expect(try await reader.revocations(after: 0, now: now + 70_000).entries == ["k2": now + 90_000])
    }

    /// 50 writers record at once while a reader polls: every revocation reaches the reader
    /// through the cursor (ids or stamps committing out of order must not skip one).
    @Test(arguments: StoreBackend.available) func concurrentWritersAreNeverSkipped(backend: StoreBackend) async throws {
        let database = try await TestDatabase.make(backend)
        defer { database.remove() }
        let writer = database.stores.revocations
        let reader = try await database.another().revocations
        let now = StoreClock.milliseconds(Date())
        var (seen, cursor) = try await reader.revocations(after: 0, now: now)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0 ..< 50 {
                group.addTask { try await writer.record("key-\(index)", until: now + 60_000) }
            }
            group.addTask {
                for _ in 0 ..< 20 {
                    _ = try await reader.revocations(after: 0, now: now)
                }
            }
            while group.isEmpty == false {
                let (entries, next) = try await reader.revocations(after: cursor, now: now)
                seen.merge(entries) { $1 }
                cursor = next
                if try await group.next() == nil { break }
            }
        }
        let (entries, _) = try await reader.revocations(after: cursor, now: now)
        seen.merge(entries) { $1 }
        #expect(seen.count == 50)
    }
}
