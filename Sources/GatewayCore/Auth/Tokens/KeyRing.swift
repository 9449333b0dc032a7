import Crypto
import Foundation

/// The signing keys of every tenant, read from the ``SigningKeyStore`` and kept in memory
/// for `refreshInterval` so `gatewayctl keys rotate|retire` is picked up without restart.
///
/// Key bootstrap: a tenant without an active key of an algorithm (ES256, RS256) gets one
/// generated on first use (first token or JWKS request), so `tenant create` needs no extra
/// step. RSA generation (tens of milliseconds) runs once per tenant, off the event loops.
public actor KeyRing {
    private struct Entry {
        var keys: [SigningKey]
        var loadedAt: ContinuousClock.Instant
    }

    private let store: any SigningKeyStore
    private let refreshInterval: Duration
    private var entries: [String: Entry] = [:]

    public init(store: any SigningKeyStore, refreshInterval: Duration = .seconds(5)) {
        self.store = store
        self.refreshInterval = refreshInterval
    }

    /// Active (published) keys, newest first; creates the first key of an algorithm when
    /// there is none.
    public func activeKeys(tenantID: String) async throws -> [SigningKey] {
        let now = ContinuousClock.now
        if let entry = entries[tenantID], now - entry.loadedAt < refreshInterval, Self.coversEveryAlgorithm(entry.keys)
        {
            return entry.keys
        }
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
        guard let entry = entries[tenantID], ContinuousClock.now - entry.loadedAt >= .seconds(1) else { return nil }
        entries[tenantID] = nil
        return try await activeKeys(tenantID: tenantID).first(where: { $0.kid == kid })?.verificationKey
    }

    /// The JWKS document members.
    public func jwks(tenantID: String) async throws -> [[String: JSONValue]] {
        try await activeKeys(tenantID: tenantID).map(\.publicJWK)
    }
}
