import Foundation
import Synchronization
import Testing
@testable import GatewayCore
@testable import GatewaySQLite

/// GRDB's blocking `read` on a cooperative thread parks it until a reader is free; with
/// enough concurrent reads every cooperative thread parks there, waiting for readers only a
/// cooperative thread can release. Store reads must use the async API.
@Suite("SQLite stores never park cooperative threads on the reader pool")
struct ReaderPoolTests {
    @Test("400 concurrent key, user and client reads all finish")
    func concurrentReads() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let tenants = try SQLiteTenantStore.open(path: folder.file("readers.sqlite"), sealer: Fixtures.sealer)
        try await tenants.create(Tenant(id: "acme", displayName: "Acme"), actor: "test")
        let store = SQLiteAuthStore(tenants: tenants)
        try await store.addSigningKey(SigningKey.generate(tenantID: "acme"))
        try await store.addClient(
            OAuthClient(tenantID: "acme", clientID: "app", redirectURIs: ["https://app.example/cb"]), secretHash: nil)
        // A deadlock stops every task, timers included: only a thread outside the
        // cooperative pool can notice it.
        let done = Atomic<Bool>(false)
        let watchdog = Thread {
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline {
                if done.load(ordering: .acquiring) { return }
                Thread.sleep(forTimeInterval: 0.2)
            }
            print(
                "ReaderPoolTests: concurrent reads did not finish in 60 s (cooperative threads parked on GRDB's reader pool)"
            )
            exit(3)
        }
        watchdog.start()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<400 {
                group.addTask {
                    switch index % 3 {
                    case 0: _ = try await store.signingKeys(tenantID: "acme")
                    case 1: _ = try await store.client(tenantID: "acme", clientID: "app")
                    default: _ = try await store.user(tenantID: "acme", username: "nobody")
                    }
                }
            }
            try await group.waitForAll()
        }
        done.store(true, ordering: .releasing)
    }
}
