import Crypto
import Foundation

/// Caches ``AccessTokenAnswer``s in a ``Cache``.
///
/// The key covers everything the answer depends on: tenant and its configVersion, mini
/// app, version and manifest fingerprint, the user and their consent version, audience
/// and sorted scopes. A consent change (new consent version) or a manifest change
/// (new fingerprint or version) therefore reads a different key at once; stale entries
/// simply expire. Cache failures fall through to evaluation.
public struct AccessTokenAnswerCache: Sendable {
    private let cache: any Cache
    private let ttl: Duration

    public init(cache: any Cache, ttl: Duration = .seconds(300)) {
        self.cache = cache
        self.ttl = ttl
    }

    /// The cache key of one answer (ids hashed, so any characters are safe).
    public static func key(
        tenant: Tenant, owner: UserMiniAppKey, manifest: MiniAppPermissionManifest, consentVersion: Int64,
        request: AccessTokenRequest
    ) -> String {
        let parts =
            [owner.userID, manifest.versionID, manifest.fingerprint, request.audience] + request.scopes.sorted()
        let digest = LowercaseHex.string(SHA256.hash(data: Data(UserMiniAppKey.canonical(parts).utf8)))
        let app = LowercaseHex.string(SHA256.hash(data: Data(owner.miniAppID.utf8)).prefix(8))
        return "ata:\(tenant.id):\(tenant.configVersion):\(app):\(consentVersion):\(digest)"
    }

    /// The cached answer, or `evaluate()`'s, stored for next time.
    public func answer(
        tenant: Tenant, owner: UserMiniAppKey, manifest: MiniAppPermissionManifest, consentVersion: Int64,
        request: AccessTokenRequest, evaluate: @Sendable () -> AccessTokenAnswer
    ) async -> AccessTokenAnswer {
        let key = Self.key(
            tenant: tenant, owner: owner, manifest: manifest, consentVersion: consentVersion, request: request)
        if let bytes = try? await cache.get(key),
            let hit = try? JSONDecoder().decode(AccessTokenAnswer.self, from: Data(bytes))
        {
            return hit
        }
        let answer = evaluate()
        if let data = try? JSONEncoder().encode(answer) {
            try? await cache.set(key, Array(data), ttl: ttl)
        }
        return answer
    }
}
