import Foundation
import Logging
import MetricsTestKit
import Testing
@testable import GatewayCore

@Suite struct AnalyticsTests {
    static let good: [AnalyticsEventInput] = [
        .init(name: "mini_app_open", miniAppID: "app-1", versionID: "v1", projectID: "p1"),
        .init(
            miniAppID: "app-1", eventType: "click", actionType: "add", pageName: "cart", componentName: "button",
            elementType: "btn", data: ["sku": "42"]),
        .init(name: "mini_app_signature_validation_fail", miniAppID: "app-2"),
    ]

    @Test(arguments: StoreBackend.available) func partialBatchKeepsValidEventsAndRejectsByIndex(
        backend: StoreBackend
    ) async throws {
        let fx = try await UserStateFixture(backend)
        defer { fx.remove() }
        let metrics = TestMetrics()
        let store = fx.stores.analytics
        let service = AnalyticsService(store: store, metrics: metrics, opens: nil)
        let batch: [AnalyticsEventInput] = [
            Self.good[0],
            .init(miniAppID: "app-1", eventType: "hover"),
            Self.good[1],
            .init(name: "open_app", miniAppID: "app-1"),
            .init(name: "mini_app_close"),
            .init(name: "mini_app_close", miniAppID: "app-1", eventType: "click"),
            .init(miniAppID: "app-1", eventType: "click", actionType: "explode"),
            Self.good[2],
        ]
        let result = try await service.ingest(tenantID: "acme", batch)
        #expect(result.accepted == 3)
        #expect(result.rejected.map(\.index) == [1, 3, 4, 5, 6])
        #expect(result.rejected.allSatisfy { !$0.reasons.isEmpty })
        #expect(result.rejected.first { $0.index == 4 }?.reasons == ["miniAppId is required"])

        let summary = try await service.summary(tenantID: "acme", since: Date().addingTimeInterval(-60))
        #expect(summary == [
            AnalyticsCount(miniAppID: "app-1", kind: .miniApp, type: "click", count: 1),
            AnalyticsCount(miniAppID: "app-1", kind: .sdk, type: "mini_app_open", count: 1),
            AnalyticsCount(miniAppID: "app-2", kind: .sdk, type: "mini_app_signature_validation_fail", count: 1),
        ])
        #expect(try await service.summary(tenantID: "beta", since: .distantPast).isEmpty)
        let counter = try metrics.expectCounter(AnalyticsService.counterLabel, [
            ("tenant", "acme"), ("mini_app", "app-1"), ("kind", "sdk"), ("type", "mini_app_open"),
        ])
        #expect(counter.totalValue == 1)
    }

    @Test(
        "an accepted mini_app_open of a signed-in user makes its mini app the most recently used; rejected or anonymous ones do not",
        arguments: StoreBackend.available)
    func acceptedOpensMarkRecentlyUsed(backend: StoreBackend) async throws {
        let fx = try await UserStateFixture(backend)
        defer { fx.remove() }
        let consents = ConsentService(store: fx.stores.consents, tokens: nil)
        let service = AnalyticsService(store: fx.stores.analytics, metrics: TestMetrics(), opens: consents)
        func recent(_ user: String) async throws -> [String] {
            try await consents.userMiniApps(tenantID: "acme", userID: user) { _ in nil }.map(\.consents.miniAppID)
        }
        _ = try await service.ingest(tenantID: "acme", userID: "alice", [
            .init(name: "mini_app_open", miniAppID: "app-1"),
            .init(name: "mini_app_close", miniAppID: "app-2"),
            .init(miniAppID: "app-3", eventType: "click"),
            .init(name: "mini_app_open", miniAppID: "app-4", eventType: "click"),
        ])
        #expect(try await recent("alice") == ["app-1"])
        _ = try await service.ingest(tenantID: "acme", [.init(name: "mini_app_open", miniAppID: "app-5")])
        #expect(try await recent("alice") == ["app-1"])
        let touched = Date()
        _ = await eventually { Date() > touched.addingTimeInterval(0.002) }  // distinct last-used times
        _ = try await service.ingest(
            tenantID: "acme", userID: "alice", [.init(name: "mini_app_open", miniAppID: "app-6")])
        #expect(try await recent("alice") == ["app-6", "app-1"])
        #expect(try await recent("bob").isEmpty)
    }

    @Test(arguments: StoreBackend.available) func batchOverTheLimitIsRefusedWhole(backend: StoreBackend) async throws {
        let fx = try await UserStateFixture(backend)
        defer { fx.remove() }
        let service = AnalyticsService(store: fx.stores.analytics, metrics: TestMetrics(), opens: nil)
        let batch = Array(repeating: Self.good[0], count: 101)
        await #expect(throws: AnalyticsBatchError.tooManyEvents(count: 101, max: 100)) {
            try await service.ingest(tenantID: "acme", batch)
        }
        #expect(try await service.summary(tenantID: "acme", since: .distantPast).isEmpty)
        #expect(try await service.ingest(tenantID: "acme", Array(batch.prefix(100))).accepted == 100)
    }

    @Test(arguments: StoreBackend.available) func retentionDeletesOldEvents(backend: StoreBackend) async throws {
        let fx = try await UserStateFixture(backend)
        defer { fx.remove() }
        let store = fx.stores.analytics
        let now = Date()
        let old = AnalyticsService(
            store: store, metrics: TestMetrics(), opens: nil, now: { now.addingTimeInterval(-40 * 86_400) })
        let fresh = AnalyticsService(store: store, metrics: TestMetrics(), opens: nil, now: { now })
        _ = try await old.ingest(tenantID: "acme", Self.good)
        _ = try await fresh.ingest(tenantID: "acme", [Self.good[0]])
        let retention = AnalyticsRetention(store: store, keepDays: 30, clock: { now }, logger: Logger(label: "test"))
        #expect(try await retention.purge() == 3)
        #expect(try await store.summary(tenantID: "acme", since: .distantPast).map(\.count) == [1])
    }
}
