import AsyncHTTPClient
import Foundation
import GatewayAPI
import GatewayCore
import Logging
import Testing

/// Issue 30, delivery: the worker claims queued deliveries and calls a fake FCM that follows
/// Google's contract (token endpoint and HTTP v1), on both engines; time moves on a manual clock.
@Suite("Push delivery through FCM: locale texts, dead tokens removed, Retry-After, consent, token renewal")
struct PushDeliveryTests {
    /// A signed-in user of `demo` with devices, who allows notifications from `shop`, and a sender.
    struct Scene {
        let kit: OAuthTestKit
        let subject: String
        let owner: UserMiniAppKey
        let senderToken: String
        let port: Int

        static func make(
            _ harness: GatewayHarness, _ client: Client, port: Int, devices: [(String, String?)],
            provider: Components.Schemas.DeviceRegistration.ProviderPayload = .fcm
        ) async throws -> Scene {
            let kit = OAuthTestKit(harness: harness, client: client, port: port)
            try await kit.setUp()
            let user = try await kit.tokens()
            let userClient = kit.authorizedClient("Bearer \(user.accessToken)")
            for (token, locale) in devices {
                _ = try await userClient.registerDevice(
                    path: .init(tenant: "demo"),
                    body: .json(
                        .init(provider: provider, token: token, platform: provider == .apns ? .ios : .android, locale: locale))
                ).created
            }
            let (subject, owner) = try await allowNotifications(harness, username: kit.username)
            let sender = try await ClientCredentialsTests.senderToken(kit, port: port)
            return Scene(kit: kit, subject: subject, owner: owner, senderToken: sender, port: port)
        }

        /// `username` of `demo` allows notifications from `shop` (stored as the consent API would);
        /// returns the user's subject and consent key.
        static func allowNotifications(_ harness: GatewayHarness, username: String) async throws
            -> (subject: String, owner: UserMiniAppKey)
        {
            let subject = try #require(try await harness.operatorStores.auth.user(tenantID: "demo", username: username))
                .subject
            let owner = UserMiniAppKey(tenantID: "demo", userID: subject, miniAppID: "shop")
            try await harness.operatorStores.consents.touch(owner)
            _ = try await harness.operatorStores.consents.setConsents(
                [CustomPermission.notifications.rawValue: .allowed], for: owner)
            return (subject, owner)
        }

        /// Queues a message to the user; returns its id.
        func send(title: String = "Shipped", body: String = "Order 42", japanese: String? = nil) async throws -> String {
            var text = #""default": {"title": "\#(title)", "body": "\#(body)"}"#
            if let japanese { text += #", "ja": {"title": "\#(japanese)", "body": "注文 42"}"# }
            let message = #"{"miniAppId": "shop", "to": {"userIds": ["\#(subject)"]}, "text": {\#(text)}, "data": {"orderId": "42", "count": 3}}"#
            let queued = try await NotificationEndpointTests.call(
                .POST, "http://127.0.0.1:\(port)/t/demo/v1/notifications", token: senderToken, json: message)
            guard queued.status == 202, case .string(let id)? = queued.json["id"] else {
                throw PushTestFailure.notQueued("\(queued.status) \(queued.json)")
            }
            return id
        }

        /// The message's counts as the sender reads them.
        func counts(_ id: String) async throws -> [String: Double] {
            let status = try await NotificationEndpointTests.call(
                .GET, "http://127.0.0.1:\(port)/t/demo/v1/notifications/\(id)", token: senderToken)
            guard case .object(let counts)? = status.json["counts"] else { return [:] }
            return counts.compactMapValues(\.doubleValue)
        }
    }

    enum PushTestFailure: Error {
        case notQueued(String)
    }

    static func worker(
        _ harness: GatewayHarness, fcm: FakeFCM, clock: ManualClock,
        configuration: PushDeliveryWorker.Configuration = .init()
    ) -> PushDeliveryWorker {
        PushDeliveryWorker(
            queue: harness.operatorStores.outbox, credentials: harness.operatorStores.pushCredentials,
            providers: [.fcm: FCMClient(client: TestHTTP.noRedirects, baseURL: fcm.baseURL, clock: clock.clock.now)],
            guards: UpstreamGuards(), metrics: PushMetrics(), configuration: configuration, clock: clock.clock.now,
            logger: Logger(label: "push-test"))
    }

    @Test("a stopping worker finishes and records its calls in flight, hands its other claims back at once, and returns", arguments: DatabaseBackend.available)
    func stopHandsClaimsBack(backend: DatabaseBackend) async throws {
        try await FakeFCM.with { fcm in
            let clock = ManualClock(Date())
            try await GatewayHarness.withGateway(backend: backend, clock: clock.clock) { harness, client, port in
                let scene = try await Scene.make(
                    harness, client, port: port, devices: (1...6).map { ("phone-\($0)", nil) })
                try await harness.operatorStores.pushCredentials.setCredentials(
                    try fcm.credentials, tenantID: "demo", now: clock.clock.now())
                let id = try await scene.send()
                fcm.latency.withLock { $0 = .milliseconds(300) }
                let worker = Self.worker(harness, fcm: fcm, clock: clock, configuration: .init(concurrency: 2))
                let running = Task { await worker.run() }
                #expect(await eventually(within: .seconds(10)) { fcm.sendCalls.withLock { $0 } >= 2 })
                worker.stop()
                await running.value
                // The two calls in flight went out and were recorded; nothing else was called.
                #expect(fcm.sendCalls.withLock { $0 } == 2)
                let counts = try await scene.counts(id)
                #expect(counts["sent"] == 2 && counts["pending"] == 4, "\(counts)")
                // The other four are claimable now, on a clock that has not moved past any lease.
                fcm.latency.withLock { $0 = .zero }
                #expect(try await Self.worker(harness, fcm: fcm, clock: clock).deliverDue() == 4)
                #expect(Set(fcm.received.withLock { $0 }.map(\.token)).count == 6, "every device called once")
                #expect(fcm.sendCalls.withLock { $0 } == 6)
            }
        }
    }

    @Test("one call per device with its locale's text; UNREGISTERED removes the device; counts", arguments: DatabaseBackend.available)
    func deliversByLocale(backend: DatabaseBackend) async throws {
        try await FakeFCM.with { fcm in
            let clock = ManualClock(Date())
            try await GatewayHarness.withGateway(backend: backend, clock: clock.clock) { harness, client, port in
                let scene = try await Scene.make(
                    harness, client, port: port, devices: [("phone-en", "en-US"), ("phone-ja", "ja-JP"), ("phone-dead", nil)])
                try await harness.operatorStores.pushCredentials.setCredentials(
                    try fcm.credentials, tenantID: "demo", now: clock.clock.now())
                fcm.deadTokens.withLock { _ = $0.insert("phone-dead") }
                let id = try await scene.send(japanese: "発送しました")
                let worker = Self.worker(harness, fcm: fcm, clock: clock)

                #expect(try await worker.deliverDue() == 3)
                let received = Dictionary(uniqueKeysWithValues: fcm.received.withLock { $0 }.map { ($0.token, $0) })
                #expect(Set(received.keys) == ["phone-en", "phone-ja"])
                #expect(received["phone-en"]?.title == "Shipped" && received["phone-ja"]?.title == "発送しました")
                #expect(received["phone-en"]?.data == ["orderId": "42", "count": "3"])
                #expect(received["phone-ja"]?.collapseKey == id && received["phone-ja"]?.androidPriority == "NORMAL")
                #expect(fcm.tokenCalls.withLock { $0 } == 1)
                let counts = try await scene.counts(id)
                #expect(counts["sent"] == 2 && counts["invalidToken"] == 1 && counts["pending"] == 0, "\(counts)")
                let devices = try await harness.operatorStores.devices.devices(tenantID: "demo", userID: scene.subject)
                #expect(Set(devices.map(\.token)) == ["phone-en", "phone-ja"])
                // Nothing left: another round calls no one.
                #expect(try await worker.deliverDue() == 0)
                #expect(fcm.sendCalls.withLock { $0 } == 3)
            }
        }
    }

    @Test("429 with Retry-After: not called again before it; then sent. A 401 renews the access token once", arguments: DatabaseBackend.available)
    func retryAfterAndRenewal(backend: DatabaseBackend) async throws {
        try await FakeFCM.with { fcm in
            let clock = ManualClock(Date())
            try await GatewayHarness.withGateway(backend: backend, clock: clock.clock) { harness, client, port in
                let scene = try await Scene.make(harness, client, port: port, devices: [("phone-a", nil), ("phone-b", nil)])
                try await harness.operatorStores.pushCredentials.setCredentials(
                    try fcm.credentials, tenantID: "demo", now: clock.clock.now())
                fcm.script.withLock { $0["phone-a"] = [.quota(retryAfter: "120")] }
                let id = try await scene.send()
                let worker = Self.worker(harness, fcm: fcm, clock: clock)
                #expect(try await worker.deliverDue() == 2)
                #expect(try await scene.counts(id)["pending"] == 1)
                clock.advance(by: .seconds(60))
                #expect(try await worker.deliverDue() == 0, "called again before Retry-After")
                clock.advance(by: .seconds(61))
                // The access token was revoked meanwhile: one 401, one renewal, then accepted.
                fcm.liveAccessTokens.withLock { $0.removeAll() }
                #expect(try await worker.deliverDue() == 1)
                let counts = try await scene.counts(id)
                #expect(counts["sent"] == 2 && counts["pending"] == 0, "\(counts)")
                #expect(fcm.tokenCalls.withLock { $0 } == 2)
                #expect(fcm.received.withLock { $0 }.filter { $0.token == "phone-a" }.count == 1)
            }
        }
    }

    @Test("consent withdrawn or the user disabled before delivery: no provider call; no credentials: failed, no call", arguments: DatabaseBackend.available)
    func consentAndCredentials(backend: DatabaseBackend) async throws {
        try await FakeFCM.with { fcm in
            let clock = ManualClock(Date())
            try await GatewayHarness.withGateway(backend: backend, clock: clock.clock) { harness, client, port in
                let scene = try await Scene.make(harness, client, port: port, devices: [("phone-a", nil)])
                let worker = Self.worker(harness, fcm: fcm, clock: clock)
                let unconfigured = try await scene.send()
                #expect(try await worker.deliverDue() == 1)
                #expect(try await scene.counts(unconfigured)["failed"] == 1)

                try await harness.operatorStores.pushCredentials.setCredentials(
                    try fcm.credentials, tenantID: "demo", now: clock.clock.now())
                let withdrawn = try await scene.send()
                _ = try await harness.operatorStores.consents.setConsents(
                    [CustomPermission.notifications.rawValue: .denied], for: scene.owner)
                clock.advance(by: .seconds(10))
                #expect(try await Self.worker(harness, fcm: fcm, clock: clock).deliverDue() == 0)
                #expect(try await scene.counts(withdrawn)["skippedNoConsent"] == 1)
                #expect(fcm.sendCalls.withLock { $0 } == 0)

                // A disabled user is silenced (counted as not consenting) until enabled again.
                _ = try await harness.operatorStores.consents.setConsents(
                    [CustomPermission.notifications.rawValue: .allowed], for: scene.owner)
                let auth = harness.operatorStores.auth
                var user = try #require(try await auth.user(tenantID: "demo", username: scene.kit.username))
                user.disabled = true
                try await auth.updateUser(user)
                let silenced = try await scene.send()
                clock.advance(by: .seconds(10))
                #expect(try await Self.worker(harness, fcm: fcm, clock: clock).deliverDue() == 0)
                #expect(try await scene.counts(silenced)["skippedNoConsent"] == 1)
                user.disabled = false
                try await auth.updateUser(user)
                let heard = try await scene.send()
                #expect(try await Self.worker(harness, fcm: fcm, clock: clock).deliverDue() == 1)
                #expect(try await scene.counts(heard)["sent"] == 1)
                #expect(fcm.sendCalls.withLock { $0 } == 1)
            }
        }
    }

    @Test("the gateway's own worker delivers what a sender queues")
    func gatewayWorker() async throws {
        try await FakeFCM.with { fcm in
            try await GatewayHarness.withGateway(push: PushEndpoints(fcm: fcm.baseURL)) { harness, client, port in
                let scene = try await Scene.make(harness, client, port: port, devices: [("phone-a", "en")])
                try await harness.operatorStores.pushCredentials.setCredentials(
                    try fcm.credentials, tenantID: "demo", now: Date())
                let id = try await scene.send()
                #expect(try await eventually(within: .seconds(10)) { try await scene.counts(id)["sent"] == 1 })
                #expect(fcm.received.withLock { $0 }.map(\.token) == ["phone-a"])
                let metrics = try await TestHTTP.noRedirects.get(url: "http://127.0.0.1:\(port)/metrics").get()
                let text = metrics.body.map { String(buffer: $0) } ?? ""
                #expect(
                    text.split(separator: "\n").contains {
                        $0.hasPrefix("gateway_push_deliveries_total") && $0.contains(#"outcome="sent""#)
                            && $0.contains(#"provider="fcm""#) && $0.hasSuffix(" 1")
                    }, "\(text.split(separator: "\n").filter { $0.contains("push") })")
            }
        }
    }
}
