import Foundation
import GatewayCore
import Logging
import Testing

/// Issue 30, APNs: the worker calls a fake APNs (HTTP/2 over TLS with a throwaway CA, Apple's
/// headers, JWT checks and error reasons) and handles what it answers.
@Suite("Push delivery through APNs over HTTP/2: headers, JWT reuse and renewal, Unregistered, 429")
struct PushAPNsDeliveryTests {
    static let live = String(repeating: "a1", count: 32)
    static let dead = String(repeating: "b2", count: 32)
    static let busy = String(repeating: "c3", count: 32)

    static func worker(_ harness: GatewayHarness, apns: FakeAPNs, clock: ManualClock) -> PushDeliveryWorker {
        PushDeliveryWorker(
            queue: harness.operatorStores.outbox, credentials: harness.operatorStores.pushCredentials,
            providers: [.apns: APNsClient(client: apns.client, baseURL: apns.baseURL, clock: clock.clock.now)],
            guards: UpstreamGuards(), metrics: PushMetrics(), clock: clock.clock.now, logger: Logger(label: "apns-test"))
    }

    @Test(.enabled(if: FakeAPNs.available, "python3 with hypercorn, h2 and cryptography is not installed (make test installs them)"),
          arguments: DatabaseBackend.available)
    func delivery(backend: DatabaseBackend) async throws {
        try await FakeAPNs.with { apns in
            // Real time: the fake checks the JWT's iat against its own clock.
            let clock = ManualClock(Date())
            try await GatewayHarness.withGateway(backend: backend, clock: clock.clock) { harness, client, port in
                let scene = try await PushDeliveryTests.Scene.make(
                    harness, client, port: port, devices: [(Self.live, "ja"), (Self.dead, nil), (Self.busy, nil)],
                    provider: .apns)
                try await harness.operatorStores.pushCredentials.setCredentials(
                    try apns.credentials, tenantID: "demo", now: Date())
                try await apns.control("dead", ["tokens": [Self.dead]])
                try await apns.control("script", [Self.busy: [["status": 429, "reason": "TooManyRequests", "retryAfter": 30]]])
                let id = try await scene.send(japanese: "発送しました")
                let worker = Self.worker(harness, apns: apns, clock: clock)

                #expect(try await worker.deliverDue() == 3)
                let received = try await apns.received()
                #expect(received.count == 1)
                let first = try #require(received.first { $0["token"] as? String == Self.live })
                #expect(first["title"] as? String == "発送しました" && first["httpVersion"] as? String == "2")
                #expect(first["topic"] as? String == FakeAPNs.topic && first["pushType"] as? String == "alert")
                #expect(first["collapseId"] as? String == id && first["priority"] as? String == "5")
                #expect((first["data"] as? [String: Any])?["orderId"] as? String == "42")
                var counts = try await scene.counts(id)
                #expect(counts["sent"] == 1 && counts["invalidToken"] == 1 && counts["pending"] == 1, "\(counts)")
                // The provider token was made once and reused by every call.
                #expect(try await apns.providerTokensIssuedAt().count == 1)
                #expect(try await harness.operatorStores.devices.devices(tenantID: "demo", userID: scene.subject)
                    .map(\.token).contains(Self.dead) == false)

                // APNs calls the token expired: renewed once, the call repeated, accepted.
                try await apns.control("expire")
                clock.advance(by: .seconds(1))
                let second = try await scene.send(title: "Again")
                // The busy device of the first message is not due before its Retry-After (30 s).
                #expect(try await worker.deliverDue() == 2)
                counts = try await scene.counts(second)
                #expect(counts["sent"] == 2, "\(counts)")
                #expect(try await apns.providerTokensIssuedAt().count == 2)
                clock.advance(by: .seconds(30))
                #expect(try await worker.deliverDue() == 1)
                #expect(try await scene.counts(id)["sent"] == 2)
                #expect(try await apns.received().count == 4)
            }
        }
    }
}
