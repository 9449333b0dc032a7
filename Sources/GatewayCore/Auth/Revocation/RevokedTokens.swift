import Foundation

/// Access-token ids revoked before their expiry, kept until they expire.
///
/// With a durable ``RevocationStore`` (the gateway always has one), a revocation is
/// written there first — so it survives a Redis restart and a replica started later
/// refuses the token — then added to this process's ``RevocationMirror`` and announced
/// through the ``RevocationFeed`` (Redis pub/sub) to the other replicas' mirrors. When
/// the announcement fails (Redis down), the revocation still stands: the other replicas
/// pick it up from the store (``RevocationSync`` polls it) and, while their own feed is
/// broken, ask the store per request.
///
/// ``isRevoked(tenantID:jti:)`` answers from the mirror while it is complete (no round
/// trip), else from the durable store, else from the feed or the cache.
///
/// Without a durable store (unit tests, benchmarks) the ids live in the feed, or in the
/// ``Cache`` when there is no feed either.
public struct RevokedTokens: Sendable {
    let cache: any Cache
    let feed: (any RevocationFeed)?
    let mirror: RevocationMirror?
    let durable: (any RevocationStore)?
    let onAnnounceFailure: @Sendable (any Error) -> Void
    let clock: WallClock

    /// - Parameters:
    ///   - mirror: this process's copy; used when there is a feed or a durable store.
    ///   - onAnnounceFailure: told when a durably recorded revocation could not be announced.
    public init(
        cache: any Cache, feed: (any RevocationFeed)? = nil, mirror: RevocationMirror? = nil,
        durable: (any RevocationStore)? = nil, clock: WallClock = .system,
        onAnnounceFailure: @escaping @Sendable (any Error) -> Void = { _ in }
    ) {
        self.clock = clock
        self.cache = cache
        self.feed = feed
        self.durable = durable
        self.mirror = feed == nil && durable == nil ? nil : mirror
        self.onAnnounceFailure = onAnnounceFailure
    }

    /// Marks `jti` revoked until `expiresAt` (+ clock skew).
    /// - Throws: when the revocation could not be stored (durably, or in the feed or cache
    ///   when there is no durable store); an announcement failure alone does not throw.
    public func revoke(tenantID: String, jti: String, expiresAt: Date) async throws {
        let now = clock.now()
        let seconds = max(1, Int(expiresAt.timeIntervalSince(now).rounded(.up)) + 60)
        let key = Self.key(tenantID, jti)
        let nowMS = StoreClock.milliseconds(now)
        let until = nowMS + Int64(seconds) * 1000
        if let durable { try await durable.record(key, until: until) }
        try await share(RecordedRevocation(key: key, untilMS: until), nowMS: nowMS)
    }

    /// Shares revocations a store already recorded durably (in the transaction that ended a
    /// user's sessions): added to this process's mirror and announced to the other replicas
    /// (best effort: they also poll the store). Without a durable store, they are kept where
    /// ``revoke(tenantID:jti:expiresAt:)`` keeps them.
    public func announce(_ revocations: [RecordedRevocation]) async throws {
        let nowMS = StoreClock.milliseconds(clock.now())
        for revocation in revocations where revocation.untilMS > nowMS {
            try await share(revocation, nowMS: nowMS)
        }
    }

    /// After the durable record (when there is a store): the mirror and the feed; else the
    /// feed, or the cache.
    private func share(_ revocation: RecordedRevocation, nowMS: Int64) async throws {
        let (key, until) = (revocation.key, revocation.untilMS)
        if durable != nil {
            mirror?.add(key, until: until, now: nowMS)
            guard let feed else { return }
            do {
                try await feed.record(key, until: until)
            } catch {
                onAnnounceFailure(error)
            }
        } else if let feed {
            try await feed.record(key, until: until)
            mirror?.add(key, until: until, now: nowMS)
        } else {
            let seconds = Int((until - nowMS + 999) / 1000)
            try await cache.set(key, [1], ttl: .seconds(seconds))
        }
    }

    /// Whether `jti` is revoked.
    public func isRevoked(tenantID: String, jti: String) async throws -> Bool {
        let key = Self.key(tenantID, jti)
        let now = clock.milliseconds()
        if let known = mirror?.lookup(key, now: now) { return known }
        if let durable { return try await durable.isRecorded(key, now: now) }
        if let feed { return try await feed.isRecorded(key) }
        return try await cache.get(key) != nil
    }

    /// Whether `jti` is revoked, when this process knows without asking anyone (its mirror
    /// is complete); nil otherwise. Never suspends.
    public func knownRevoked(tenantID: String, jti: String) -> Bool? {
        mirror?.lookup(Self.key(tenantID, jti), now: clock.milliseconds())
    }

    /// The revocation key of a token id (durable table, mirror and feed).
    public static func key(_ tenantID: String, _ jti: String) -> String { "oauth:revoked-jti:\(tenantID):\(jti)" }
    /// How long a revocation of a token expiring at `expiresAtMS` is kept: its expiry plus the
    /// verifiers' clock skew.
    public static func revokedUntil(expiresAtMS: Int64) -> Int64 { expiresAtMS + 60_000 }
}
