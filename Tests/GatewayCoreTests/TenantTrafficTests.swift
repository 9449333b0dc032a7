import Foundation
import RedisClient
import Testing

@testable import GatewayCore

/// Tenant traffic for the console's overview (issue 49): counted in memory per replica,
/// added to shared counters, read back as one hour per tenant in one multi-key read.
@Suite("Tenant traffic shared by replicas")
struct TenantTrafficTests {
    @Test(arguments: AuthorizationCodeRedemptionTests.caches)
    func twoReplicasAddUpAndTheHourIsRead(kind: String) async throws {
        let (cache, client) = try AuthorizationCodeRedemptionTests.cache(kind)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let (first, second) = (TenantTraffic(), TenantTraffic())
        for _ in 0..<18 { first.record(tenant: "acme", status: 200, milliseconds: 3, at: now) }
        second.record(tenant: "acme", status: 503, milliseconds: 300, at: now.addingTimeInterval(-1_800))
        second.record(tenant: "acme", status: 200, milliseconds: 9_000, at: now)
        // Two hours ago: past the hour the overview reads.
        second.record(tenant: "beta", status: 500, milliseconds: 1, at: now.addingTimeInterval(-7_200))
        await first.flush(to: cache)
        await second.flush(to: cache)
        await first.flush(to: cache)  // drained: adds nothing

        let hour = try await TenantTraffic.summaries(cache, tenants: ["acme", "beta", "gamma"], now: now)
        let acme = try #require(hour["acme"])
        #expect(acme.requests == 20 && acme.errors == 1 && acme.errorShare == 0.05)
        #expect(acme.perMinute == 20.0 / 60)
        // 95 % of 20 is 19: the 18 fast ones and the 300 ms one, so the 500 ms bucket.
        #expect(acme.p95 == 500)
        #expect(hour["beta"]?.requests == 0 && hour["beta"]?.p95 == nil && hour["gamma"]?.errorShare == nil)
        await client?.shutdown()
    }

    @Test func theP95IsTheBucketItFallsIn() {
        var tally = TenantTraffic.Tally()
        tally.buckets[0] = 95
        tally.buckets[TenantTraffic.bounds.count] = 5
        #expect(TenantTraffic.p95(tally) == 5)
        tally.buckets[0] = 94
        #expect(TenantTraffic.p95(tally) == .infinity)
        #expect(TenantTraffic.p95(TenantTraffic.Tally()) == nil)
    }
}
