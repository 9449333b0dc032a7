import Crypto
import Foundation

/// The signing keys of every tenant, read from the ``SigningKeyStore`` and kept in memory
/// for `refreshInterval` so `gatewayctl keys rotate|retire` is picked up without restart.
///
/// Key bootstrap: a tenant without an active key of an algorithm (ES256, RS256) gets one
/// generated on first use (first token or JWKS request), so `tenant create` needs no extra
/// step. RSA generation (tens of milliseconds) runs once per tenant, off the event loops.
///
/// Keys older than `refreshInterval` are reloaded in the background while the loaded ones
/// answer, for up to `staleLimit`: a replica cut off from its database keeps verifying and
/// signing with the keys it has (a rotation or retirement reaches it once it reads again)
/// instead of making every token wait for the database; past `staleLimit` the reload is
/// the request's again, and so is its failure.
public actor KeyRing {
    private struct Entry {
        var keys: [SigningKey]
        var loadedAt: ContinuousClock.Instant
    }

    private let store: any SigningKeyStore
    private let refreshInterval: Duration
    private let staleLimit: Duration
    private var entries: [String: Entry] = [:]
    /// Tenants whose keys are being reloaded in the background.
    private var reloading: Set<String> = []

    public init(
        store: any SigningKeyStore, refreshInterval: Duration = .seconds(5), staleLimit: Duration = .seconds(600)
    ) {
        self.store = store
        self.refreshInterval = refreshInterval
        self.staleLimit = staleLimit
    }

    /// Active (published) keys, newest first; creates the first key of an algorithm when
    /// there is none.
    public func activeKeys(tenantID: String) async throws -> [SigningKey] {
        let now = ContinuousClock.now
        if let entry = entries[tenantID], Self.coversEveryAlgorithm(entry.keys) {
            let age = now - entry.loadedAt
            if age < refreshInterval { return entry.keys }
            if age < staleLimit {
                reloadInBackground(tenantID)
                return entry.keys
            }
        }
        return try await load(tenantID: tenantID, at: now)
    }

    private func reloadInBackground(_ tenantID: String) {
        guard reloading.insert(tenantID).inserted else { return }
        Task {
            _ = try? await self.load(tenantID: tenantID, at: .now)
            self.reloading.remove(tenantID)
        }
    }

    private func load(tenantID: String, at now: ContinuousClock.Instant) async throws -> [SigningKey] {
        var keys = try await store.signingKeys(tenantID: tenantID).filter { $0.state == .active }
        let missing = SigningKey.Algorithm.allCases.filter { algorithm in !keys.contains { $0.algorithm == algorithm } }
        if !missing.isEmpty {
            for algorithm in missing {
                try await store.addSigningKey(try SigningKey.generate(tenantID: tenantID, algorithm: algorithm))
            }
            keys = try await store.signingKeys(tenantID: tenantID).filter { $0.state == .active }
        }
        entries[tenantID] = Entry(keys: keys, loadedAt: now)
        return keys
    }

    private static func coversEveryAlgorithm(_ keys: [SigningKey]) -> Bool {
        SigningKey.Algorithm.allCases.allSatisfy { algorithm in keys.contains { $0.algorithm == algorithm } }
    }

    /// The key that signs new tokens with `algorithm` (the newest active one).
    public func signingKey(tenantID: String, algorithm: SigningKey.Algorithm = .es256) async throws -> SigningKey {
        guard let key = try await activeKeys(tenantID: tenantID).first(where: { $0.algorithm == algorithm }) else {
            throw AuthStoreError.notFound("\(algorithm.rawValue) signing key")
        }
        return key
    }

    /// The public key for `kid` when it is an active key of the tenant; reloads once on a miss.
    public func verificationKey(tenantID: String, kid: String) async throws -> VerificationKey? {
        if let key = try await activeKeys(tenantID: tenantID).first(where: { $0.kid == kid }) {
            return key.verificationKey
        }
        // Reload at most once a second, so tokens with made-up kids cannot hammer SQLite.
        // A failed reload keeps the loaded keys (a made-up kid must not empty the ring while
        // the database is away).
        guard let entry = entries[tenantID], ContinuousClock.now - entry.loadedAt >= .seconds(1) else { return nil }
        return try await load(tenantID: tenantID, at: .now).first(where: { $0.kid == kid })?.verificationKey
    }

    /// The JWKS document members.
    public func jwks(tenantID: String) async throws -> [[String: JSONValue]] {
        try await activeKeys(tenantID: tenantID).map(\.publicJWK)
    }
}
