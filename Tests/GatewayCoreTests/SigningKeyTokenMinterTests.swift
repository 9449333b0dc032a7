import Crypto
import Foundation
@testable import GatewayCore
@testable import GatewaySQLite
import Testing

@Suite("SigningKeyTokenMinter: mini-app tokens signed with the tenant key")
struct SigningKeyTokenMinterTests {
    @Test(
        "the token verifies against the tenant's JWKS and carries aud, scope, sub, azp, iss, jti; lifetime capped at 5 minutes"
    )
    func verifiesAgainstJWKS() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try Fixtures.store(folder)
        let tenant = Tenant(id: "acme", displayName: "Acme")
        _ = try await store.create(tenant, actor: "test")
        let keys = KeyRing(store: SQLiteAuthStore(tenants: store))
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let minter = SigningKeyTokenMinter(keys: keys, issuer: { "https://gw.example/t/\($0)" }, now: { now })

        let minted = try await minter.mint(
            tenant: tenant, subject: "user-1", miniAppID: "hello", audience: "rae", scopes: ["a", "b"],
            lifetime: .seconds(3600))
        #expect(minted.validUntil == now.addingTimeInterval(300))

        let parsed = try JWS.parse(minted.token)
        let kid = try #require(parsed.header["kid"]?.stringValue)
        let jwk = try #require(try await keys.jwks(tenantID: "acme").first { $0["kid"]?.stringValue == kid })
        let x = try #require(jwk["x"]?.stringValue.flatMap { Base64URL.decode($0) })
        let y = try #require(jwk["y"]?.stringValue.flatMap { Base64URL.decode($0) })
        try JWS.verify(parsed, key: try P256.Signing.PublicKey(rawRepresentation: x + y))

        let claims = try #require(try JSONValue.decode(parsed.payload).objectValue)
        #expect(claims["aud"] == "rae")
        #expect(claims["scope"] == "a b")
        #expect(claims["sub"] == "user-1")
        #expect(claims["azp"] == "hello")
        #expect(claims["iss"] == "https://gw.example/t/acme")
        #expect((claims["jti"]?.stringValue?.count ?? 0) >= 16)
        #expect(claims["exp"] == .number(1_800_000_300))

        // Another tenant's key does not verify it.
        let other = Tenant(id: "other", displayName: "Other")
        _ = try await store.create(other, actor: "test")
        let otherJWK = try #require(try await keys.jwks(tenantID: "other").first { $0["kty"] == "EC" })
        let ox = try #require(otherJWK["x"]?.stringValue.flatMap { Base64URL.decode($0) })
        let oy = try #require(otherJWK["y"]?.stringValue.flatMap { Base64URL.decode($0) })
        #expect(throws: (any Error).self) {
            try JWS.verify(parsed, key: try P256.Signing.PublicKey(rawRepresentation: ox + oy))
        }
    }
}
