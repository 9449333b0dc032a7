import Foundation
import Testing
@testable import GatewayCore

/// The push outbox on both engines (issue 30): one delivery per recipient device, pending
/// only where the user allows notifications from the mini app, idempotent per sender key.
@Suite("Push outbox contract")
struct PushOutboxContractTests {
    static let sender = SenderTokenClaims(
        clientID: "shop-backend", tenantID: "acme", scopes: ["notifications:send"], miniApps: ["shop"], jti: "j",
        expiresAt: .distantFuture)

    /// alice (2 devices) allows notifications from shop, bob (1) denies, carol (1) never answered.
    static func withWorld(
        _ backend: StoreBackend, _ body: (NotificationService, TestDatabase) async throws -> Void
    ) async throws {
        let database = try await TestDatabase.make(backend)
        defer { database.remove() }
        let stores = database.stores
        try await stores.tenants.create(Tenant(id: "acme", displayName: "Acme"), actor: "t")
        let devices = DeviceService(store: stores.devices)
        for (user, tokens) in [("alice", ["a1", "a2"]), ("bob", ["b1"]), ("carol", ["c1"])] {
            for token in tokens {
                _ = try await devices.register(
                    .init(provider: .fcm, token: "token-\(token)", platform: .android), tenantID: "acme", userID: user)
            }
        }
        for (user, status) in [("alice", ConsentStatus.allowed), ("bob", .denied)] {
            let owner = UserMiniAppKey(tenantID: "acme", userID: user, miniAppID: "shop")
            try await stores.consents.touch(owner)
            _ = try await stores.consents.setConsents([CustomPermission.notifications.rawValue: status], for: owner)
        }
        try await body(NotificationService(outbox: stores.outbox, domains: stores.domains), database)
    }

    static func request(_ recipients: PushRecipients, body: String = "Your order shipped") -> PushContent {
        .init(miniAppID: "shop", recipients: recipients, texts: ["default": .init(title: "Shop", body: body)])
    }

    @Test(arguments: StoreBackend.available) func namedAndAllRecipients(backend: StoreBackend) async throws {
        try await Self.withWorld(backend) { service, database in
            let named = try await service.send(
                Self.request(.users(["alice", "bob", "carol", "nobody"])), from: Self.sender, idempotencyKey: nil)
            guard case .queued(let id, let deliveries) = named else { throw CancellationError() }
            #expect(deliveries == 4)
            let status = try await service.status(of: id, sender: Self.sender)
            #expect(status.counts == [.pending: 2, .skippedNoConsent: 2])
            #expect(Set(status.deliveries.filter { $0.state == .pending }.map(\.userID)) == ["alice"])
            #expect(
                try await database.stores.outbox.countsByProvider(tenantID: "acme", messageID: id)
                    == [.fcm: [.pending: 2, .skippedNoConsent: 2]])
            #expect(status.message.content.texts["default"]?.body == "Your order shipped")

            let all = try await service.send(Self.request(.allConsented), from: Self.sender, idempotencyKey: nil)
            guard case .queued(let allID, let allDeliveries) = all else { throw CancellationError() }
            #expect(allDeliveries == 2)
            #expect(try await service.status(of: allID, sender: Self.sender).counts == [.pending: 2])
            // The console's backlog: pending deliveries per tenant, none for a tenant without any.
            #expect(
                try await database.stores.outbox.pendingDeliveries(tenantIDs: ["acme", "beta"]) == ["acme": 4])
            #expect(try await database.stores.outbox.pendingDeliveries(tenantIDs: []).isEmpty)
            // Another sender does not see it.
            var other = Self.sender
            other.clientID = "other"
            await #expect(throws: NotificationError.notFound(messageID: allID)) {
                try await service.status(of: allID, sender: other)
            }
        }
    }

    @Test(arguments: StoreBackend.available) func idempotentRetries(backend: StoreBackend) async throws {
        try await Self.withWorld(backend) { service, database in
            let first = try await service.send(Self.request(.allConsented), from: Self.sender, idempotencyKey: "order-42")
            let again = try await service.send(Self.request(.allConsented), from: Self.sender, idempotencyKey: "order-42")
            guard case .queued(let id, _) = first else { throw CancellationError() }
            #expect(again == .replayed(messageID: id))
            await #expect(throws: NotificationError.idempotencyConflict) {
                try await service.send(
                    Self.request(.allConsented, body: "something else"), from: Self.sender, idempotencyKey: "order-42")
            }
            let messages = try await database.integer("SELECT COUNT(*) FROM push_messages")
            let deliveries = try await database.integer("SELECT COUNT(*) FROM push_deliveries")
            #expect(messages == 1 && deliveries == 2)
        }
    }

    @Test(arguments: StoreBackend.available) func refusalsQueueNothing(backend: StoreBackend) async throws {
        try await Self.withWorld(backend) { service, database in
            var otherApp = Self.request(.allConsented)
            otherApp.miniAppID = "bank"
            var bigData = Self.request(.allConsented)
            bigData.data = .object(["blob": .string(String(repeating: "x", count: 5_000))])
            var noDefault = Self.request(.allConsented)
            noDefault.texts = ["ja": .init(title: "ショップ", body: "発送しました")]
            var foreignLink = Self.request(.allConsented)
            foreignLink.link = "https://evil.example/x"
            let tooMany = Self.request(.users((0...1_000).map { "user\($0)" }))
            await #expect(throws: NotificationError.self) {
                try await service.send(otherApp, from: Self.sender, idempotencyKey: nil)
            }
            for request in [bigData, noDefault, foreignLink, tooMany] {
                await #expect(throws: NotificationError.self) {
                    try await service.send(request, from: Self.sender, idempotencyKey: nil)
                }
            }
            var unscoped = Self.sender
            unscoped.scopes = []
            await #expect(throws: NotificationError.self) {
                try await service.send(Self.request(.allConsented), from: unscoped, idempotencyKey: nil)
            }
            let messages = try await database.integer("SELECT COUNT(*) FROM push_messages")
            #expect(messages == 0)
        }
    }

    /// Queues one message to alice (2 consenting devices), bob (no consent) and carol's
    /// device; returns its id.
    static func queued(_ service: NotificationService, ttl: Int = 3_600) async throws -> String {
        var request = Self.request(.users(["alice", "bob"]))
        request.ttlSeconds = ttl
        guard case .queued(let id, _) = try await service.send(request, from: Self.sender, idempotencyKey: nil) else {
            throw CancellationError()
        }
        return id
    }

    @Test(arguments: StoreBackend.available) func claimsLeaseAndRecord(backend: StoreBackend) async throws {
        try await Self.withWorld(backend) { service, database in
            let queue = database.stores.outbox
            let id = try await Self.queued(service)
            let now = Date()
            let claimed = try await queue.claim(limit: 10, lease: .seconds(30), now: now)
            #expect(claimed.count == 2 && Set(claimed.map(\.userID)) == ["alice"])
            #expect(Set(claimed.map(\.token)) == ["token-a1", "token-a2"] && claimed.allSatisfy { $0.message.id == id })
            // Leased: nobody else takes them until the lease ends (a worker that died).
            #expect(try await queue.claim(limit: 10, lease: .seconds(30), now: now.addingTimeInterval(10)).isEmpty)
            let retaken = try await queue.claim(limit: 10, lease: .seconds(30), now: now.addingTimeInterval(31))
            #expect(retaken.count == 2)

            try await queue.record(.sent, of: retaken[0], now: now.addingTimeInterval(32))
            try await queue.record(.retry(at: now.addingTimeInterval(100)), of: retaken[1], now: now.addingTimeInterval(32))
            #expect(try await queue.claim(limit: 10, lease: .seconds(30), now: now.addingTimeInterval(99)).isEmpty)
            let again = try await queue.claim(limit: 10, lease: .seconds(30), now: now.addingTimeInterval(100))
            #expect(again.map(\.deviceID) == [retaken[1].deviceID] && again.first?.attempts == 1)
            try await queue.record(.invalidToken, of: again[0], now: now.addingTimeInterval(101))
            // A late record of a delivery that ended changes nothing.
            try await queue.record(.sent, of: again[0], now: now.addingTimeInterval(102))

            let status = try await service.status(of: id, sender: Self.sender)
            #expect(status.counts == [.sent: 1, .invalidToken: 1, .skippedNoConsent: 1])
            let left = try await database.stores.devices.devices(tenantID: "acme", userID: "alice")
            #expect(left.map(\.id) == [retaken[0].deviceID], "an invalid token's device is removed")
        }
    }

    @Test(arguments: StoreBackend.available) func deliveriesThatCannotGoOutEndAtClaim(backend: StoreBackend) async throws {
        try await Self.withWorld(backend) { service, database in
            let queue = database.stores.outbox
            let expiring = try await Self.queued(service, ttl: 0)
            let withdrawn = try await Self.queued(service)
            // alice withdraws consent, then removes one device.
            let owner = UserMiniAppKey(tenantID: "acme", userID: "alice", miniAppID: "shop")
            _ = try await database.stores.consents.setConsents([CustomPermission.notifications.rawValue: .denied], for: owner)
            #expect(try await queue.claim(limit: 10, lease: .seconds(30), now: Date().addingTimeInterval(1)).isEmpty)
            #expect(try await service.status(of: expiring, sender: Self.sender).counts == [.expired: 2, .skippedNoConsent: 1])
            #expect(
                try await service.status(of: withdrawn, sender: Self.sender).counts == [.skippedNoConsent: 3])

            _ = try await database.stores.consents.setConsents([CustomPermission.notifications.rawValue: .allowed], for: owner)
            let removed = try await Self.queued(service)
            let alices = try await database.stores.devices.devices(tenantID: "acme", userID: "alice")
            _ = try await database.stores.devices.remove(tenantID: "acme", userID: "alice", deviceID: alices[0].id)
            let claimed = try await queue.claim(limit: 10, lease: .seconds(30), now: Date().addingTimeInterval(1))
            #expect(claimed.map(\.deviceID) == [alices[1].id])
            #expect(try await service.status(of: removed, sender: Self.sender).counts
                == [.pending: 1, .invalidToken: 1, .skippedNoConsent: 1])
        }
    }

    /// Workers on several replicas at once take disjoint batches (PostgreSQL's SKIP LOCKED).
    @Test(arguments: StoreBackend.available) func concurrentClaimsAreDisjoint(backend: StoreBackend) async throws {
        try await Self.withWorld(backend) { service, database in
            for _ in 0..<20 { _ = try await Self.queued(service) }
            let now = Date().addingTimeInterval(1)
            let batches = try await withThrowingTaskGroup(of: [ClaimedDelivery].self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        let queue = try await database.another().outbox
                        return try await queue.claim(limit: 15, lease: .seconds(30), now: now)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let keys = batches.flatMap { $0.map { $0.messageID + "/" + $0.deviceID } }
            #expect(keys.count == 40 && Set(keys).count == 40, "every pending delivery once: \(batches.map(\.count))")
        }
    }

    @Test(arguments: StoreBackend.available) func retentionDeletesExpiredMessages(backend: StoreBackend) async throws {
        try await Self.withWorld(backend) { service, database in
            let old = try await Self.queued(service, ttl: 60)
            let young = try await Self.queued(service, ttl: 20 * 86_400)
            let later = Date().addingTimeInterval(8 * 86_400)
            let retention = BatchedRetention.pushOutbox(
                database.stores.outbox, batch: 1, clock: { later }, logger: .init(label: "t"))
            #expect(try await retention.purge() == 1)
            await #expect(throws: NotificationError.notFound(messageID: old)) {
                try await service.status(of: old, sender: Self.sender)
            }
            #expect(try await service.status(of: young, sender: Self.sender).counts[.pending] == 2)
            let deliveries = try await database.integer("SELECT COUNT(*) FROM push_deliveries")
            #expect(deliveries == 3, "the young message's three deliveries stay")
        }
    }
}
