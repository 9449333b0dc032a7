import Foundation
import GatewayCore
import GatewayPostgres
import Synchronization
import Testing

/// Issue 30, durability across replicas: three gateway processes on one PostgreSQL deliver one
/// message to 10,000 devices through a fake FCM; one replica is killed with SIGKILL mid-delivery.
/// Every device gets at least one provider call; repeats are at most the one round the dead
/// replica had claimed and not recorded; a retried send call never makes a second message.
/// Stopped with SIGTERM instead (issue 47), the replica finishes its calls in flight, records them
/// and hands its other claims back: nothing is repeated beyond the calls in flight, and nothing
/// waits for its lease to run out.
@Suite("Push across three replicas with one killed mid-delivery", .enabled(if: DatabaseBackend.serverURL != nil), .serialized)
struct PushClusterTests {
    static let devices = 10_000
    static let perUser = 20
    /// What a killed replica may repeat: the outcomes it had not yet recorded
    /// (``PushDeliveryWorker/Configuration/recordEvery``, 64) plus its calls in flight (16).
    static let repeatBound = 64 + 16

    @Test("10,000 devices, one replica SIGKILLed mid-delivery: all reached, repeats bounded, one message")
    func killedReplica() async throws {
        try await Self.withCluster(lease: "10000") { cluster, fcm in
            try await Self.run(cluster, fcm: fcm, stopping: .kill, repeatBound: Self.repeatBound)
        }
    }

    /// A SIGTERMed replica's claims come back at once: with a 120 s lease the other replicas still
    /// finish in seconds, and the stopped one repeats nothing beyond its 16 calls in flight.
    @Test("10,000 devices, one replica SIGTERMed mid-delivery: no repeats beyond the calls in flight, no lease waited out")
    func terminatedReplica() async throws {
        try await Self.withCluster(lease: "120000") { cluster, fcm in
            try await Self.run(cluster, fcm: fcm, stopping: .terminate, repeatBound: 16)
        }
    }

    static func withCluster(
        lease: String, _ body: @Sendable (ClusterTests.Cluster, FakeFCM) async throws -> Void
    ) async throws {
        try await FakeFCM.with { fcm in
            fcm.latency.withLock { $0 = .milliseconds(20) }
            let cluster = try await ClusterTests.Cluster.start(settings: [
                "GATEWAY_PUSH_FCM_URL": fcm.baseURL, "GATEWAY_PUSH_CONCURRENCY": "16", "GATEWAY_PUSH_LEASE_MS": lease,
                "GATEWAY_PUSH_SEND_QUOTA": "0",
            ])
            do {
                try await body(cluster, fcm)
            } catch {
                await cluster.stop()
                throw error
            }
            await cluster.stop()
        }
    }

    /// How replica 0 goes away mid-delivery.
    enum Stopping {
        /// SIGKILL: no goodbye.
        case kill
        /// SIGTERM: a graceful stop, waited for until the process has exited.
        case terminate
    }

    enum PushClusterFailure: Error {
        case notQueued(String)
    }

    static func run(
        _ cluster: ClusterTests.Cluster, fcm: FakeFCM, stopping: Stopping, repeatBound: Int
    ) async throws {
        let url = try #require(cluster.environment["GATEWAY_DATABASE_URL"])
        let stores = try await PostgresStores.open(
            url: url, sealer: SecretSealer(masterKey: try MasterKey(base64: GatewayHarness.masterKeyBase64)),
            logger: DatabaseBackend.quiet)
        defer { Task { await stores.close() } }
        let tenantID = "pushcluster"
        try await stores.tenants.create(Tenant(id: tenantID, displayName: "Push cluster"), actor: "test")
        try await stores.pushCredentials.setCredentials(try fcm.credentials, tenantID: tenantID, now: Date())
        let service = DeviceService(store: stores.devices, maxPerUser: perUser)
        let users = devices / perUser
        try await withThrowingTaskGroup(of: Void.self) { group in
            for lane in 0..<16 {
                group.addTask {
                    for user in stride(from: lane, to: users, by: 16) {
                        let userID = String(format: "user-%05d", user)
                        for device in 0..<perUser {
                            _ = try await service.register(
                                .init(provider: .fcm, token: "tok-\(user)-\(device)", platform: .android),
                                tenantID: tenantID, userID: userID)
                        }
                        let owner = UserMiniAppKey(tenantID: tenantID, userID: userID, miniAppID: "shop")
                        try await stores.consents.touch(owner)
                        _ = try await stores.consents.setConsents(
                            [CustomPermission.notifications.rawValue: .allowed], for: owner)
                    }
                }
            }
            try await group.waitForAll()
        }
        // A sender, with a token from replica 1 (tenant changes reach every replica by NOTIFY).
        let secret = ClientSecret.generate()
        var sender = OAuthClient(
            tenantID: tenantID, clientID: "shop-backend", confidential: true, redirectURIs: [],
            allowedScopes: [NotificationService.sendScope])
        sender.grantTypes = [ClientCredentials.grantType]
        sender.miniApps = ["shop"]
        try await stores.auth.addClient(sender, secretHash: secret.hash)
        let tokenURL = cluster.bases[1] + "/t/\(tenantID)/oauth2/token"
        let basic = "Basic " + Data("shop-backend:\(secret.secret)".utf8).base64EncodedString()
        let token = Mutex<String?>(nil)
        _ = await eventually(within: .seconds(10)) {
            let answer = try? await ClusterTests.request(
                tokenURL, method: "POST",
                headers: [("Authorization", basic), ("Content-Type", "application/x-www-form-urlencoded")],
                body: "grant_type=client_credentials")
            guard answer?.status == 200, let body = answer?.body,
                let json = try? ClusterTests.json(body), let value = json["access_token"] as? String
            else { return false }
            token.withLock { $0 = value }
            return true
        }
        let bearer = try #require(token.withLock { $0 }, "no sender token from \(tokenURL)")
        let message = #"{"miniAppId": "shop", "to": {"all": true}, "text": {"default": {"title": "Sale", "body": "Today only"}}}"#
        func send(via base: String) async throws -> String {
            let answer = try await ClusterTests.request(
                base + "/t/\(tenantID)/v1/notifications", method: "POST",
                headers: [("Authorization", "Bearer \(bearer)"), ("Content-Type", "application/json"),
                          ("Idempotency-Key", "sale-1")], body: message)
            guard answer.status == 202, let id = (try? ClusterTests.json(answer.body))?["id"] as? String else {
                throw PushClusterFailure.notQueued(answer.body)
            }
            return id
        }
        let id = try await send(via: cluster.bases[1])

        // Stop replica 0 once deliveries are under way.
        let underWay = await eventually(within: .seconds(60)) { fcm.sendCalls.withLock { $0 } >= 1_500 }
        try #require(underWay, "deliveries did not start: \(fcm.sendCalls.withLock { $0 }) calls")
        switch stopping {
        case .kill: await cluster.kill(replica: 0)
        case .terminate: try await cluster.terminate(replica: 0)
        }
        let stopped = ContinuousClock.now
        let callsAtKill = fcm.sendCalls.withLock { $0 }
        // The retried send call (same key) on another replica is the same message.
        #expect(try await send(via: cluster.bases[2]) == id)

        let sender0 = SenderTokenClaims(
            clientID: "shop-backend", tenantID: tenantID, scopes: [NotificationService.sendScope], miniApps: ["shop"],
            jti: "t", expiresAt: .distantFuture)
        let notifications = NotificationService(outbox: stores.outbox, domains: stores.domains)
        let drained = await eventually(within: .seconds(120), every: .milliseconds(250)) {
            let status = try? await notifications.status(of: id, sender: sender0)
            return status.map { ($0.counts[.pending] ?? 0) == 0 } ?? false
        }
        let drainedAfter = ContinuousClock.now - stopped
        let status = try await notifications.status(of: id, sender: sender0)
        try #require(drained, "still pending: \(status.counts)")
        var calls: [String: Int] = [:]
        for entry in fcm.received.withLock({ $0 }) { calls[entry.token, default: 0] += 1 }
        let reached = calls.count
        let repeats = calls.values.reduce(0) { $0 + $1 - 1 }
        print(
            "push cluster (\(stopping)): \(devices) devices, \(callsAtKill) calls when replica 0 stopped, \(reached) reached, \(repeats) repeated calls, drained \(drainedAfter) after the stop, counts \(status.counts)"
        )
        if stopping == .terminate {
            // Its claims came back when it stopped: the rest went out long before its 120 s lease.
            #expect(drainedAfter < .seconds(90), "drained \(drainedAfter) after the stop: a lease was waited out")
        }
        #expect(reached == devices, "devices never called: \(devices - reached)")
        #expect(status.counts[.sent] == devices)
        #expect(repeats <= repeatBound, "more repeats than the stopped replica's unrecorded calls")
        #expect(try await stores.outbox.purge(expiredBefore: .distantFuture, limit: 10) == 1, "one message only")
    }
}
