import Foundation
@testable import GatewayCore
import RedisClient
import Testing

/// Issue 32: a code exchange redeems its code and leaves the family it produces in one cache
/// command (`SET ... XX GET` on Redis), where it took two (GETDEL, then SET of a marker).
@Suite("Authorization codes redeemed in one step")
struct AuthorizationCodeRedemptionTests {
    /// The in-process cache, and Redis when `make test` provides one.
    static var caches: [String] {
        let redis = ProcessInfo.processInfo.environment["REDIS_URL"].map { !$0.isEmpty } ?? false
        return redis ? ["memory", "redis"] : ["memory"]
    }

    static func cache(_ kind: String) throws -> (cache: any Cache, client: RedisClient?) {
        guard kind == "redis", let url = ProcessInfo.processInfo.environment["REDIS_URL"] else {
            return (MemoryCache(), nil)
        }
        let client = RedisClient(configuration: try RedisConfiguration(url: url))
        return (RedisCache(client: client, namespace: "test:codes:\(UUID().uuidString):"), client)
    }

    static let grant = AuthorizationGrant(
        tenantID: "acme", clientID: "app", redirectURI: "https://app.example/cb", codeChallenge: "c",
        subject: "user-1", scope: "openid", nonce: nil, authTime: 0)

    @Test("a code is granted once; every replay names the family the first redemption produced", arguments: caches)
    func redeemOnce(kind: String) async throws {
        let (cache, client) = try Self.cache(kind)
        let codes = AuthorizationCodes(cache: cache)
        let code = try await codes.issue(Self.grant)
        let granted = try #require(try await codes.redeem(code, tenantID: "acme", producing: "family-1").granted)
        #expect(granted.subject == Self.grant.subject && granted.clientID == Self.grant.clientID)
        let first = Redemption.usedBefore(familyID: "family-1")
        #expect(try await codes.redeem(code, tenantID: "acme", producing: "family-2") == first)
        #expect(try await codes.redeem(code, tenantID: "acme", producing: "family-3") == first)
        #expect(try await codes.redeem(code, tenantID: "other", producing: "family-4") == .unknown)
        await client?.shutdown()
    }

    @Test("an unknown code is refused and leaves nothing behind", arguments: caches)
    func unknownCode(kind: String) async throws {
        let (cache, client) = try Self.cache(kind)
        let codes = AuthorizationCodes(cache: cache)
        #expect(try await codes.redeem("made-up", tenantID: "acme", producing: "family-1") == .unknown)
        #expect(try await codes.redeem("made-up", tenantID: "acme", producing: "family-2") == .unknown)
        #expect(try await cache.replace("absent", with: [1], ttl: .seconds(5)) == nil)
        #expect(try await cache.get("absent") == nil)
        await client?.shutdown()
    }

    @Test("an expired code is refused", arguments: caches)
    func expiredCode(kind: String) async throws {
        let (cache, client) = try Self.cache(kind)
        let time = ManualClock()
        let codes = AuthorizationCodes(cache: cache, clock: time.wall)
        let code = try await codes.issue(Self.grant)
        time.advance(AuthorizationCodes.lifetime)
        #expect(try await codes.redeem(code, tenantID: "acme", producing: "family-1") == .unknown)
        await client?.shutdown()
    }
}

extension Redemption {
    var granted: AuthorizationGrant? { if case .granted(let grant) = self { grant } else { nil } }
}
