import Foundation
import GatewayAPI
import GatewayCore
import Testing

/// The automatic halt (issue 29): analytics the SDKs send count opens and failures per
/// version in a window shared by replicas (Redis under `make test`); a candidate failing 5×
/// as often as stable over the opens threshold is halted with its reason in the history.
@Suite("Release automatic halt: counted from analytics, shared, recorded")
struct ReleaseHaltTests {
    typealias Event = Components.Schemas.AnalyticsEvent

    /// `count` events of one kind for `version`, in batches of at most 100.
    static func send(
        _ client: Client, tenant: String, _ count: Int, version: String, failing: Bool = false
    ) async throws {
        let event: Event =
            failing
            ? Event(miniAppId: "hello", versionId: version, eventType: "error")
            : Event(name: "mini_app_open", miniAppId: "hello", versionId: version)
        var left = count
        while left > 0 {
            let batch = Array(repeating: event, count: min(left, 100))
            let result = try await client.postAnalytics(path: .init(tenant: tenant), body: .json(.init(events: batch)))
                .ok.body.json
            #expect(result.accepted == batch.count)
            left -= batch.count
        }
    }

    @Test("5x stable's failure rate halts at the opens threshold, not before; the cohort returns to stable")
    func haltsOverTheThreshold() async throws {
        let clock = ManualClock(Date())
        try await FakePlatform.with { fake in
            StagedReleaseEndpointTests.seed(fake)
            try await GatewayHarness.withGateway(clock: clock.clock) { harness, client, port in
                let id = uniqueTenantID("relhalt")
                let (token, user) = try await StagedReleaseEndpointTests.signedIn(harness, GatewayHarness.tenant(id, on: fake))
                try await StagedReleaseEndpointTests.release(harness, tenant: id) { service, target in
                    try await service.set(target) { policy in
                        policy.stable = "v1"
                        policy.candidate = ReleaseCandidate(
                            version: "v2", percent: RolloutPercent("50")!, allowUsers: [user])
                        policy.autoHalt = AutoHaltRule(errorRatio: 2, minOpens: 200)
                    }
                }
                let store = harness.operatorStores.releases
                // Stable: 400 opens, 8 failures (2 %). Candidate: 199 opens, 20 failures (10 %): under the threshold.
                try await Self.send(client, tenant: id, 400, version: "v1")
                try await Self.send(client, tenant: id, 8, version: "v1", failing: true)
                try await Self.send(client, tenant: id, 199, version: "v2")
                try await Self.send(client, tenant: id, 20, version: "v2", failing: true)
                #expect(try await store.policy(tenantID: id, miniAppID: "hello")?.candidate?.state == .active)

                // The 200th open: 5x stable's rate over the threshold halts it.
                try await Self.send(client, tenant: id, 1, version: "v2")
                let halted = try await store.policy(tenantID: id, miniAppID: "hello")
                #expect(halted?.candidate?.state == .halted)
                let entry = try #require(try await store.history(tenantID: id, miniAppID: "hello", limit: 1).first)
                #expect(entry.action == .halt && entry.actor == "gateway")
                #expect(entry.reason?.contains("automatic halt: candidate v2 failed on 10.0% of 200 opens") == true)
                #expect(entry.reason?.contains("stable on 2.0% of 400") == true)
                let url = "http://127.0.0.1:\(port)/t/\(id)/v1/miniapps/hello"
                #expect(
                    try await eventually(within: .seconds(5)) {
                        StagedReleaseEndpointTests.versionID(
                            try await StagedReleaseEndpointTests.get(url, token: token).json) == "v1"
                    }, "the allow-listed cohort returns to stable")
                let metrics = try await StagedReleaseEndpointTests.text("http://127.0.0.1:\(port)/metrics")
                #expect(metrics.contains("gateway_release_halts_total{tenant=\"\(id)\",mini_app=\"hello\"} 1"))
            }
        }
    }

    @Test("below the ratio, or after the window slid past the failures, nothing halts")
    func belowTheRatioNothingHappens() async throws {
        let rule = AutoHaltRule(errorRatio: 2, minOpens: 200)
        typealias Tally = ReleaseHealth.Tally
        #expect(!ReleaseHealth.condemns(candidate: Tally(opens: 500, failures: 15), stable: Tally(opens: 500, failures: 10), rule: rule))
        #expect(ReleaseHealth.condemns(candidate: Tally(opens: 500, failures: 25), stable: Tally(opens: 500, failures: 10), rule: rule))
        #expect(!ReleaseHealth.condemns(candidate: Tally(opens: 199, failures: 199), stable: Tally(opens: 1, failures: 0), rule: rule))
        #expect(!ReleaseHealth.condemns(candidate: Tally(opens: 300, failures: 0), stable: Tally(opens: 300, failures: 0), rule: rule))
        #expect(
            !ReleaseHealth.condemns(candidate: Tally(opens: 300, failures: 90), stable: Tally(opens: 150, failures: 0), rule: rule),
            "too few stable opens to compare with")
        #expect(!ReleaseHealth.condemns(candidate: Tally(opens: 300, failures: 1), stable: Tally(opens: 300, failures: 0), rule: rule))
        #expect(ReleaseHealth.condemns(candidate: Tally(opens: 300, failures: 3), stable: Tally(opens: 300, failures: 0), rule: rule))

        let clock = ManualClock(Date())
        try await FakePlatform.with { fake in
            StagedReleaseEndpointTests.seed(fake)
            try await GatewayHarness.withGateway(clock: clock.clock) { harness, client, port in
                let id = uniqueTenantID("relhalt")
                try await harness.createTenant(GatewayHarness.tenant(id, on: fake))
                try await StagedReleaseEndpointTests.release(harness, tenant: id) { service, target in
                    try await service.set(target) { policy in
                        policy.candidate = ReleaseCandidate(version: "v2", percent: RolloutPercent("10")!)
                        policy.autoHalt = AutoHaltRule(errorRatio: 2, minOpens: 100)
                    }
                }
                let store = harness.operatorStores.releases
                // 1.5x stable's rate, well over the opens threshold: no halt.
                try await Self.send(client, tenant: id, 200, version: "v1")
                try await Self.send(client, tenant: id, 20, version: "v1", failing: true)
                try await Self.send(client, tenant: id, 200, version: "v2")
                try await Self.send(client, tenant: id, 30, version: "v2", failing: true)
                #expect(try await store.policy(tenantID: id, miniAppID: "hello")?.candidate?.state == .active)
                // Two windows later those failures no longer count: healthy opens alone halt nothing.
                clock.advance(by: .seconds(1_200))
                let later = try await harness.secondUser(tenant: id, client: client, port: port).client
                try await Self.send(later, tenant: id, 150, version: "v2")
                try await Self.send(later, tenant: id, 1, version: "v2", failing: true)
                try await Self.send(later, tenant: id, 100, version: "v1")
                try await Self.send(later, tenant: id, 1, version: "v1", failing: true)
                #expect(try await store.policy(tenantID: id, miniAppID: "hello")?.candidate?.state == .active)
            }
        }
    }
}
