import Crypto
import Foundation
import Synchronization

/// The signing keys of every tenant, read from the ``SigningKeyStore`` and kept in memory.
///
/// What a key does at a time is decided by its schedule (``TenantKeys``) against the injected
/// clock on every call, so every replica starts and stops signing with a key, and publishes and
/// unpublishes it, at the stored times, whatever it last read. Reloads only bring new keys and
/// changed schedules: every `refreshInterval` in the background, at once when the tenant
/// changes (``TenantStateFollower``: `gatewayctl keys` bumps the tenant's change counter), and
/// when a token names a kid this replica does not know (at most once a second).
///
/// Key bootstrap: a tenant without a key that may sign an algorithm (ES256, RS256) gets one
/// generated on first use (first token or JWKS request), so `tenant create` needs no extra
/// step. RSA generation (tens of milliseconds) runs once per tenant, off the event loops.
///
/// Keys older than `refreshInterval` are reloaded in the background while the loaded ones
/// answer, for up to `staleLimit`: a replica cut off from its database keeps verifying and
/// signing with the keys it has instead of making every token wait for the database; past
/// `staleLimit` the reload is the request's again, and so is its failure.
public final class KeyRing: TenantStateFollower {
    private struct Entry {
        var keys: TenantKeys
        var loadedAt: ContinuousClock.Instant
    }

    private struct State {
        var entries: [String: Entry] = [:]
        /// Tenants whose keys are being reloaded in the background.
        var reloading: Set<String> = []
        /// Tenants that changed while their reload was under way: read once more after it.
        var changedMeanwhile: Set<String> = []
    }

    private let store: any SigningKeyStore
    private let refreshInterval: Duration
    private let staleLimit: Duration
    private let clock: WallClock
    private let state = Mutex(State())

    public init(
        store: any SigningKeyStore, refreshInterval: Duration = .seconds(5), staleLimit: Duration = .seconds(600),
        clock: WallClock = .system
    ) {
        self.store = store
        self.refreshInterval = refreshInterval
        self.staleLimit = staleLimit
        self.clock = clock
    }

    /// The tenant's keys (loading them when they are not held or too old); a tenant without a
    /// key that may sign an algorithm gets one.
    public func keys(tenantID: String) async throws -> TenantKeys {
        let instant = clock.instant()
        if let entry = state.withLock({ $0.entries[tenantID] }),
            entry.keys.algorithmsWithoutSigner(at: clock.now()).isEmpty
        {
            let age = instant - entry.loadedAt
            if age < refreshInterval { return entry.keys }
            if age < staleLimit {
                reloadInBackground(tenantID)
                return entry.keys
            }
        }
        return try await load(tenantID: tenantID)
    }

    /// Published keys at this moment, newest first.
    public func publishedKeys(tenantID: String) async throws -> [SigningKey] {
        try await keys(tenantID: tenantID).published(at: clock.now())
    }

    /// Reads the tenant's keys again off the caller's path (one reload at a time per tenant);
    /// `changed`: the tenant changed now, so a reload already under way (which may have read
    /// before the change) is followed by one more.
    private func reloadInBackground(_ tenantID: String, changed: Bool = false) {
        let start = state.withLock { state -> Bool in
            if state.reloading.insert(tenantID).inserted { return true }
            if changed { state.changedMeanwhile.insert(tenantID) }
            return false
        }
        guard start else { return }
        Task {
            while true {
                _ = try? await self.load(tenantID: tenantID)
                let again = self.state.withLock { state -> Bool in
                    if state.changedMeanwhile.remove(tenantID) != nil { return true }
                    state.reloading.remove(tenantID)
                    return false
                }
                if !again { return }
            }
        }
    }

    /// Reads the keys of `tenantIDs` that this replica does not hold yet, one tenant at a time,
    /// at start: a replica cut off from its database before a tenant's first token would
    /// otherwise answer that tenant's tokens and JWKS 503 (make chaos, partition-pg). Makes no
    /// key: a tenant without one gets it on first use, as before. Failures are left to first use.
    public func preload(tenantIDs: [String]) async {
        for tenantID in tenantIDs where state.withLock({ $0.entries[tenantID] == nil }) {
            if Task.isCancelled { return }
            let started = clock.instant()
            guard let stored = try? await store.signingKeys(tenantID: tenantID) else { continue }
            let keys = TenantKeys(stored)
            guard keys.algorithmsWithoutSigner(at: clock.now()).isEmpty else { continue }
            state.withLock { state in
                if state.entries[tenantID] == nil { state.entries[tenantID] = Entry(keys: keys, loadedAt: started) }
            }
        }
    }

    @discardableResult
    private func load(tenantID: String) async throws -> TenantKeys {
        let started = clock.instant()
        var keys = TenantKeys(try await store.signingKeys(tenantID: tenantID))
        let missing = keys.algorithmsWithoutSigner(at: clock.now())
        if !missing.isEmpty {
            // Another replica may make the same tenant's first key at this moment: the store keeps
            // one, and every replica signs with the key it kept. The key may sign from a clock
            // skew's allowance before now, so a replica whose clock runs behind this one's
            // counts it as signing already and makes no second key. (A first key has no token
            // to wait for: nothing is signed before it exists.)
            for algorithm in missing {
                let now = clock.now()
                try await store.addFirstSigningKey(
                    try SigningKey.generate(
                        tenantID: tenantID, algorithm: algorithm, now: now, signFrom: now.addingTimeInterval(-TokenVerifier.skew)),
                    now: now)
            }
            keys = TenantKeys(try await store.signingKeys(tenantID: tenantID))
        }
        state.withLock { state in
            // A later load that finished first is not undone.
            if let held = state.entries[tenantID], held.loadedAt > started { return }
            state.entries[tenantID] = Entry(keys: keys, loadedAt: started)
        }
        return keys
    }

    /// The key that signs new tokens with `algorithm` now.
    public func signingKey(tenantID: String, algorithm: SigningKey.Algorithm = .es256) async throws -> SigningKey {
        if let key = try await keys(tenantID: tenantID).signer(algorithm, at: clock.now()) { return key }
        // A schedule ran out since the last read (the signer retired, no successor): read again.
        guard let key = try await load(tenantID: tenantID).signer(algorithm, at: clock.now()) else {
            throw AuthStoreError.notFound("\(algorithm.rawValue) signing key")
        }
        return key
    }

    /// The public key for `kid` when it is published now; reloads once on a miss.
    public func verificationKey(tenantID: String, kid: String) async throws -> VerificationKey? {
        if let key = try await keys(tenantID: tenantID).published(kid: kid, at: clock.now()) {
            return key.verificationKey
        }
        // A kid unknown here may be a key another replica just made: reload at most once a
        // second, so tokens with made-up kids cannot hammer the database. A failed reload keeps
        // the loaded keys (a made-up kid must not empty the ring while the database is away).
        let instant = clock.instant()
        guard let entry = state.withLock({ $0.entries[tenantID] }), instant - entry.loadedAt >= .seconds(1),
            !entry.keys.keys.contains(where: { $0.kid == kid })
        else { return nil }
        return try await load(tenantID: tenantID).published(kid: kid, at: clock.now())?.verificationKey
    }

    /// Whether `kid` of `tenantID` is published now, when this replica knows without asking (its
    /// keys are loaded); nil otherwise. Never suspends: a memoised token is refused the moment
    /// the key that signed it leaves the JWKS.
    public func isPublished(tenantID: String, kid: String) -> Bool? {
        guard let entry = state.withLock({ $0.entries[tenantID] }) else { return nil }
        guard let key = entry.keys.keys.first(where: { $0.kid == kid }) else { return nil }
        return key.isPublished(at: clock.now())
    }

    /// The JWKS document members: every key published now.
    public func jwks(tenantID: String) async throws -> [[String: JSONValue]] {
        try await publishedKeys(tenantID: tenantID).map(\.publicJWK)
    }

    /// Tenants changed (`gatewayctl keys` bumps the tenant's change counter): the keys of those
    /// this replica holds are read again at once, in the background, so a key retired at once is
    /// refused within the change feed's delay. Never fails and never waits: the directory's
    /// refresh (which calls this for every tenant change) is not held by a key read.
    public func reload(tenantIDs: Set<String>?) async throws {
        let held = state.withLock { Set($0.entries.keys) }
        for tenantID in tenantIDs.map({ $0.intersection(held) }) ?? held {
            reloadInBackground(tenantID, changed: true)
        }
    }
}
