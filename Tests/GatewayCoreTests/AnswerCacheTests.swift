import Foundation
import Metrics
import Logging
import Synchronization
import Testing
@testable import GatewayCore

@Suite("Answer cache: envelope, single-flight, negative caching, stale-if-error")
struct AnswerCacheTests {
    static func makeCache() -> AnswerCache {
        AnswerCache(cache: MemoryCache(), factory: NOOPMetricsHandler.instance, logger: Logger(label: "test"))
    }

    @Test("the envelope round-trips and rejects garbage")
    func envelope() {
        let answer = CachedAnswer(
            status: 200, body: Array("{\"a\":1}".utf8), storedAt: 1, freshUntil: 2, staleUntil: 3, errorUntil: 4)
        #expect(CacheEnvelope.decode(CacheEnvelope.encode(answer)) == answer)
        #expect(CacheEnvelope.decode([1, 2, 3]) == nil)
    }

    @Test("1,000 concurrent misses of one key share one load")
    func singleFlight() async throws {
        let cache = Self.makeCache()
        let loads = Counted()
        let policy = CachePolicy.ttl(seconds: 60)
        try await withThrowingTaskGroup(of: CachedAnswer.self) { group in
            for _ in 0..<1000 {
                group.addTask {
                    try await cache.answer("k", policy: policy) {
                        loads.value.withLock { $0 += 1 }
                        try await Task.sleep(for: .milliseconds(100))
                        return .init(status: 200, body: [1, 2, 3])
                    }
                }
            }
            for try await answer in group { #expect(answer.body == [1, 2, 3]) }
        }
        #expect(loads.value.withLock { $0 } == 1)
    }

    @Test("a stale copy stands in for an upstream failure; a 4xx-like failure does not")
    func staleIfError() async throws {
        let time = ManualClock()
        let cache = AnswerCache(
            cache: MemoryCache(), factory: NOOPMetricsHandler.instance, logger: Logger(label: "test"), clock: time.wall)
        let policy = CachePolicy(fresh: .zero, staleWhileRevalidate: .zero, staleIfError: .seconds(60))
        _ = try await cache.answer("k", policy: policy) { .init(status: 200, body: [7]) }
        time.advance(.milliseconds(5))
        let stale = try await cache.answer("k", policy: policy) { throw UpstreamError.serverError(status: 503) }
        #expect(stale.body == [7])
        await #expect(throws: UpstreamError.rateLimited(retryAfter: nil)) {
            try await cache.answer("k", policy: policy) { throw UpstreamError.rateLimited(retryAfter: nil) }
        }
    }

    @Test("a slow upstream: past the grace the stale copy answers, and the load still fills the cache")
    func staleGrace() async throws {
        let time = ManualClock()
        let cache = AnswerCache(
            cache: MemoryCache(), staleGrace: .milliseconds(50), factory: NOOPMetricsHandler.instance,
            logger: Logger(label: "test"), clock: time.wall)
        let policy = CachePolicy(fresh: .seconds(1), staleWhileRevalidate: .zero, staleIfError: .seconds(60))
        _ = try await cache.answer("k", policy: policy) { .init(status: 200, body: [7]) }
        time.advance(.seconds(2))  // past fresh and stale-while-revalidate: only stale-if-error is left
        let (gate, open) = AsyncStream<Void>.makeStream()
        let slowLoads = Counted()
        let started = ContinuousClock.now
        let answer = try await cache.answer("k", policy: policy) {
            slowLoads.value.withLock { $0 += 1 }
            for await _ in gate { break }  // the upstream answers only when the test says so
            return .init(status: 200, body: [8])
        }
        #expect(answer.body == [7], "the stale copy answers while the upstream is slow")
        #expect(ContinuousClock.now - started < .seconds(5))
        // On a loaded machine the grace can pass before the load even started; it must be
        // the one running before the upstream answers, or a later call would load instead.
        while slowLoads.value.withLock({ $0 }) == 0 { await Task.yield() }
        open.yield()
        // The load goes on: the cache gets its answer (later calls join it or find it stored).
        var body: [UInt8] = []
        for _ in 0..<200 where body != [8] {
            body = try await cache.answer("k", policy: policy) { .init(status: 200, body: [9]) }.body
        }
        #expect(body == [8])
        #expect(slowLoads.value.withLock { $0 } == 1)
    }

    @Test("cache keys carry tenant and its upstream version; parts are escaped")
    func keys() {
        let tenant = Tenant(id: "acme", displayName: "Acme", configVersion: 7)
        let version = CacheKey.upstreamVersion(tenant)
        #expect(version.count == 16 && version.allSatisfy(\.isHexDigit))
        // The digest's digits, zero-padded: keys must not change across releases (a rolling
        // deploy would make every answer cold).
        let digits = String(CacheKey.upstreamDigest(tenant), radix: 16)
        #expect(version == String(repeating: "0", count: 16 - digits.count) + digits)
        #expect(
            CacheKey.answer(tenant: tenant, kind: "manifest", ["a:b", "v1", ""])
                == "gw:v1:acme:u\(version):manifest:a%3Ab:v1:")
    }

    @Test("the upstream version follows the upstream settings only, secrets excepted")
    func upstreamVersion() {
        let base = Tenant(
            id: "acme", displayName: "Acme",
            platform: PlatformSettings(baseURL: "https://ras.example", projectID: "p1", subscriptionKey: SecretValue("k1")),
            configVersion: 7)
        let version = CacheKey.upstreamVersion(base)
        var other = base
        other.displayName = "Renamed"
        other.configVersion = 8
        other.cacheTTLs.manifestSeconds = 5
        other.platform.subscriptionKey = SecretValue("k2")
        #expect(CacheKey.upstreamVersion(other) == version)
        let changes: [(inout Tenant) -> Void] = [
            { $0.platform.baseURL = "https://ras2.example" }, { $0.platform.projectID = "p2" },
            { $0.platform.previewMode = true }, { $0.platform.requireSignatureVerification = true },
            { $0.provisioning.baseURL = "https://prov.example" }, { $0.provisioning.superAppID = "s" },
            { $0.provisioning.superAppVersion = "1" },
            // A value moved from one field to the next is another configuration.
            { $0.platform.projectID = nil; $0.provisioning.baseURL = "p1" },
            { $0.platform.projectID = "" },
        ]
        var seen: Set<String> = [version]
        for change in changes {
            var changed = base
            change(&changed)
            #expect(seen.insert(CacheKey.upstreamVersion(changed)).inserted)
        }
    }

    @Test("near copy: a hot answer is served without the shared cache, only within its lifetime and while fresh")
    func nearCopy() async throws {
        let shared = MemoryCache()
        let (cache, time, loads, load) = Self.nearScene(shared)
        let policy = CachePolicy.ttl(seconds: 60)
        #expect(try await cache.answer("k", policy: policy, load: load).body == [1])
        // Gone from the shared cache: the near copy still answers, with no load.
        try await shared.delete(["k"])
        #expect(try await cache.answer("k", policy: policy, load: load).body == [1])
        #expect(loads.value.withLock { $0 } == 1)
        // Past the near lifetime the shared cache is asked again (a miss → one load).
        time.advance(.milliseconds(250))
        #expect(try await cache.answer("k", policy: policy, load: load).body == [2])

        // Never past freshness: a 0 s fresh window is never served from the near copy.
        let short = CachePolicy(fresh: .zero, staleWhileRevalidate: .zero, staleIfError: .zero)
        _ = try await cache.answer("s", policy: short, load: load)
        _ = try await cache.answer("s", policy: short, load: load)
        #expect(loads.value.withLock { $0 } == 4)
    }

    @Test("near copy: bounded, and a zero lifetime turns it off")
    func nearBounds() {
        let near = NearAnswers(capacity: 10, lifetime: .seconds(5))
        let answer = CachedAnswer(
            status: 200, body: [1], storedAt: 0, freshUntil: 10_000, staleUntil: 10_000, errorUntil: 10_000)
        for i in 0..<25 { near.put("k\(i)", answer, now: 0) }
        #expect(near.count <= 10)
        #expect(near.get("k24", now: 4_999) == answer)
        #expect(near.get("k24", now: 5_000) == nil)
        #expect(!NearAnswers(lifetime: .zero).isEnabled)
    }
}

extension AnswerCacheTests {
    /// An answer cache over `shared` with a 200 ms near copy on a manual clock, and a load that
    /// counts its calls and answers the count.
    static func nearScene(_ shared: any Cache, near: NearAnswers = NearAnswers(lifetime: .milliseconds(200))) -> (
        cache: AnswerCache, time: ManualClock, loads: Counted,
        load: @Sendable () async throws -> AnswerCache.Loaded
    ) {
        let time = ManualClock()
        let cache = AnswerCache(
            cache: shared, near: near, factory: NOOPMetricsHandler.instance,
            logger: Logger(label: "test"), clock: time.wall)
        let loads = Counted()
        return (cache, time, loads, {
            let n = loads.value.withLock { $0 += 1; return $0 }
            return .init(status: 200, body: [UInt8(n)])
        })
    }

    /// A shared cache that can be "down" (every call fails) and come back empty, as a
    /// restarted redis-server does.
    final class SwitchableCache: Cache {
        let base = MemoryCache()
        let down = Mutex(false)
        /// The keys stored, as they are stored (so a test awaits a background write, no polling).
        let writes = AsyncStream<String>.makeStream()
        struct Down: Error {}
        var kind: String { "switchable" }

        private func check() throws { if down.withLock({ $0 }) { throw Down() } }
        func get(_ key: String) async throws -> [UInt8]? { try check(); return try await base.get(key) }
        func set(_ key: String, _ value: [UInt8], ttl: Duration) async throws {
            try check()
            try await base.set(key, value, ttl: ttl)
            writes.continuation.yield(key)
        }
        func setIfAbsent(_ key: String, _ value: [UInt8], ttl: Duration) async throws -> Bool {
            try check()
            return try await base.setIfAbsent(key, value, ttl: ttl)
        }
        func take(_ key: String) async throws -> [UInt8]? { try check(); return try await base.take(key) }
        func replace(_ key: String, with value: [UInt8], ttl: Duration) async throws -> [UInt8]? {
            try check()
            return try await base.replace(key, with: value, ttl: ttl)
        }
        func delete(_ keys: [String]) async throws -> Int { try check(); return try await base.delete(keys) }
        func increment(_ key: String, by: Int64, ttl: Duration) async throws -> Int64 {
            try check()
            return try await base.increment(key, by: by, ttl: ttl)
        }
        func ping() async throws { try check() }
    }

    @Test(
        "an answer kept in process while the shared cache was down goes back to it within a near lifetime once it is up (issue 33's lead)",
        .timeLimit(.minutes(1)))
    func refillAfterOutage() async throws {
        let shared = SwitchableCache()
        let near = NearAnswers(lifetime: .milliseconds(200))
        let (cache, time, loads, load) = Self.nearScene(shared, near: near)
        let policy = CachePolicy.ttl(seconds: 300)
        shared.down.withLock { $0 = true }
        #expect(try await cache.answer("k", policy: policy, load: load).body == [1])
        // The shared cache is back, empty. Within a near lifetime it is asked again...
        shared.down.withLock { $0 = false }
        time.advance(.milliseconds(250))
        #expect(try await cache.answer("k", policy: policy, load: load).body == [1])
        // (the old code never stores it: this waits until the time limit fails the test)
        for await key in shared.writes.stream where key == "k" { break }
        // (the write is seen before the background task keeps its ordinary near copy)
        while near.awaitsSharing("k") { await Task.yield() }
        // ...and holds the answer again, for every replica: no second upstream load.
        let stored = try await shared.base.get("k")
        #expect(stored.flatMap(CacheEnvelope.decode)?.body == [1])
        #expect(loads.value.withLock { $0 } == 1)
        // An ordinary near copy again: past its lifetime the shared cache answers.
        try await shared.base.delete(["k"])
        time.advance(.milliseconds(250))
        #expect(try await cache.answer("k", policy: policy, load: load).body == [2])
    }
}

final class Counted: Sendable {
    let value = Mutex(0)
}
