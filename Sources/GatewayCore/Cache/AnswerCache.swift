import Logging
import Metrics

/// Cache-aside for gateway answers over any ``Cache`` (Redis or in-process).
///
/// - near hit: a fresh answer read from the shared cache less than the near lifetime
///   ago (``NearAnswers``), with no round trip.
/// - fresh hit: the stored bytes, untouched.
/// - stale within stale-while-revalidate: the stored bytes, and one background refresh.
/// - miss: ONE load per key in this process (``SingleFlight``); across replicas a short
///   lock (`SET NX PX`) lets one replica load while the others wait briefly for its answer.
/// - load failed: a stale copy within stale-if-error stands in when the failure allows it.
/// - load slow: with a stale copy within stale-if-error, the upstream gets `staleGrace`;
///   past it the copy answers and the load goes on in the background, filling the cache.
/// - 404/422 answers are stored for the policy's negative TTL.
/// Cache failures never fail a request: they count as misses and the upstream answers;
/// an answer the shared cache could not store is kept in process while it is fresh.
public final class AnswerCache: Sendable {
    /// A loaded answer before it gets its cache metadata.
    public struct Loaded: Sendable {
        public var status: Int
        public var body: [UInt8]

        public init(status: Int, body: [UInt8]) {
            self.status = status
            self.body = body
        }
    }

    private let cache: any Cache
    private let near: NearAnswers
    private let flights = SingleFlight<CachedAnswer>()
    private let lockTTL: Duration
    private let lockWait: Duration
    private let staleGrace: Duration
    private let logger: Logger
    private let staleServed: Counter
    private let refreshes: Counter
    private let nearHits: Counter
    private let warnings: WarningThrottle
    private let clock: WallClock

    /// - Parameters:
    ///   - near: hot answers kept in process; pass `NearAnswers(lifetime: .zero)` to ask the
    ///     shared cache every time.
    ///   - staleGrace: how long a request holding a stale copy (past stale-while-revalidate,
    ///     within stale-if-error) waits for the upstream before the copy answers; `.zero`
    ///     waits for the upstream's answer or failure (up to the request's upstream budget).
    ///   - clock: what answers are stamped with and judged fresh, stale or too old by.
    public init(
        cache: any Cache, near: NearAnswers = NearAnswers(), lockTTL: Duration = .seconds(2),
        lockWait: Duration = .milliseconds(500), staleGrace: Duration = .zero,
        factory: any MetricsFactory, logger: Logger, warnings: WarningThrottle = WarningThrottle(),
        clock: WallClock = .system
    ) {
        self.clock = clock
        self.staleGrace = staleGrace
        self.warnings = warnings
        self.cache = cache
        self.near = near
        self.lockTTL = lockTTL
        self.lockWait = lockWait
        self.logger = logger
        staleServed = Counter(label: "gateway_answer_stale_served_total", factory: factory)
        refreshes = Counter(label: "gateway_answer_refreshes_total", factory: factory)
        nearHits = Counter(label: "gateway_answer_near_hits_total", factory: factory)
    }

    /// A hint remembered under `key` (not an answer: callers verify it); nil when none or
    /// the cache is unreachable.
    public func hint(_ key: String) async -> String? {
        (try? await cache.get(key)).flatMap { $0 }.map { String(decoding: $0, as: UTF8.self) }
    }

    /// Remembers a hint (best effort: a cache failure only loses the hint).
    public func remember(hint: String, under key: String, ttl: Duration) async {
        try? await cache.set(key, Array(hint.utf8), ttl: ttl)
    }

    /// The answer for `key` when this process holds a copy it may serve without asking
    /// anyone (a near hit, counted like one); nil otherwise, or when the copy is due to be
    /// shared again (``answer(_:policy:load:)`` does that). Never suspends: the edge's event-loop
    /// fast path answers from it.
    public func nearAnswer(_ key: String) -> CachedAnswer? {
        guard let (hot, share) = near.lookUp(key, now: clock.milliseconds()), !share else { return nil }
        nearHits.increment()
        return hot
    }

    /// The answer for `key`, from the cache when possible, else from `load`.
    public func answer(
        _ key: String, policy: CachePolicy, load: @escaping @Sendable () async throws -> Loaded
    ) async throws -> CachedAnswer {
        if let (hot, share) = near.lookUp(key, now: clock.milliseconds()) {
            nearHits.increment()
            if share { shareInBackground(key, hot) }
            return hot
        }
        let cached = await read(key)
        let now = clock.milliseconds()
        if let cached {
            if now < cached.freshUntil {
                near.put(key, cached, now: now)
                return cached
            }
            if now < cached.staleUntil {
                refreshInBackground(key, policy: policy, load: load)
                return cached
            }
        }
        guard let cached, staleGrace > .zero, now < cached.errorUntil else {
            do {
                return try await flights.run(key) { try await self.fill(key, policy: policy, load: load) }
            } catch {
                return try stale(cached, key, for: error)
            }
        }
        let loading: @Sendable () async throws -> CachedAnswer = {
            try await self.flights.run(key) {
                // The work may start after the grace (a loaded machine), when another flight
                // has refreshed the answer already: no second upstream call then.
                if let current = await self.read(key), self.clock.milliseconds() < current.freshUntil { return current }
                return try await self.fill(key, policy: policy, load: load)
            }
        }
        switch await CutOff.outcome(until: .now + staleGrace, leftover: .finishInBackground, loading) {
        case .finished(.success(let answer)):
            return answer
        case .finished(.failure(let error)):
            return try stale(cached, key, for: error)
        case .cut:
            return served(cached, key, because: "slow")
        case .cancelled:
            throw CancellationError()
        }
    }

    /// The stale copy standing in for a failed load, when the failure allows it; else the failure.
    private func stale(_ cached: CachedAnswer?, _ key: String, for error: any Error) throws -> CachedAnswer {
        guard let upstream = UpstreamError.underlying(error), upstream.allowsStale,
              let cached, clock.milliseconds() < cached.errorUntil
        else { throw error }
        return served(cached, key, because: "\(upstream)")
    }

    private func served(_ cached: CachedAnswer, _ key: String, because reason: String) -> CachedAnswer {
        staleServed.increment()
        // One line per tenant × reason per interval (an outage would log every request).
        let tenant = key.split(separator: ":", maxSplits: 3).dropFirst(2).first.map(String.init) ?? "-"
        warnings.warning(
            logger, "serving stale answers", kind: "\(tenant)|\(reason)",
            metadata: ["cache_key": "\(key)", "upstream_error": "\(reason)"])
        return cached
    }

    /// Stores an answer kept in process (the shared cache was down) in the shared cache; once
    /// that works it is an ordinary near copy again, and replicas share it.
    private func shareInBackground(_ key: String, _ answer: CachedAnswer) {
        Task {
            // Stamped when it was written: a near copy is as old as its copy in the shared cache.
            let sharedAt = clock.milliseconds()
            let lifetime = max(answer.staleUntil, answer.errorUntil) - sharedAt
            guard lifetime > 0,
                (try? await cache.set(key, CacheEnvelope.encode(answer), ttl: .milliseconds(lifetime))) != nil
            else { return }
            near.put(key, answer, now: sharedAt)
        }
    }

    private func refreshInBackground(
        _ key: String, policy: CachePolicy, load: @escaping @Sendable () async throws -> Loaded
    ) {
        refreshes.increment()
        Task {
            _ = try? await self.flights.run(key) { try await self.fill(key, policy: policy, load: load) }
        }
    }

    private func fill(
        _ key: String, policy: CachePolicy, load: @escaping @Sendable () async throws -> Loaded
    ) async throws -> CachedAnswer {
        let lockKey = key + ":lock"
        let locked: Bool
        do {
            locked = try await cache.setIfAbsent(lockKey, [1], ttl: lockTTL)
            // Another replica holds the lock: give it a moment to store its answer.
            if !locked, let answer = await waitForOtherReplica(key) { return answer }
        } catch {
            locked = false  // cache down: load without waiting (single-flight still holds in-process)
        }
        do {
            let answer = stamp(try await load(), policy: policy)
            do {
                let lifetime = max(answer.staleUntil, answer.errorUntil) - answer.storedAt
                try await cache.set(key, CacheEnvelope.encode(answer), ttl: .milliseconds(max(1, lifetime)))
                near.put(key, answer, now: answer.storedAt)
            } catch {
                // The shared cache is down: keep the answer in process while it is fresh, so
                // hot keys do not reach the upstream on every request until it is back.
                near.put(key, answer, now: answer.storedAt, wholeFreshness: true)
                logger.debug("cache write failed; answer kept in process", metadata: ["cache_key": "\(key)"])
            }
            if locked { _ = try? await cache.delete([lockKey]) }
            return answer
        } catch {
            if locked { _ = try? await cache.delete([lockKey]) }
            throw error
        }
    }

    /// Another replica holds the lock: poll for its answer until `lockWait` passes.
    private func waitForOtherReplica(_ key: String) async -> CachedAnswer? {
        let until = ContinuousClock.now + lockWait
        while ContinuousClock.now < until {
            try? await Task.sleep(for: .milliseconds(20))
            if let answer = await read(key), clock.milliseconds() < answer.freshUntil { return answer }
        }
        return nil
    }

    private func read(_ key: String) async -> CachedAnswer? {
        guard let bytes = try? await cache.get(key) else { return nil }
        return CacheEnvelope.decode(bytes)
    }

    private func stamp(_ loaded: Loaded, policy: CachePolicy) -> CachedAnswer {
        let now = clock.milliseconds()
        if loaded.status != 200 {
            let until = now + policy.negative.wholeMilliseconds
            return CachedAnswer(
                status: loaded.status, body: loaded.body, storedAt: now, freshUntil: until, staleUntil: until,
                errorUntil: until)
        }
        let fresh = now + policy.fresh.wholeMilliseconds
        return CachedAnswer(
            status: 200, body: loaded.body, storedAt: now, freshUntil: fresh,
            staleUntil: fresh + policy.staleWhileRevalidate.wholeMilliseconds,
            errorUntil: fresh + policy.staleIfError.wholeMilliseconds
        )
    }
}
