import Crypto
import Foundation

/// Verifies DPoP proofs (RFC 9449): `typ: dpop+jwt`, ES256 with an embedded public P-256
/// JWK, `htm`, `htu` (without query and fragment), `iat` within ±60 s, unique `jti`
/// (replay cache in the ``Cache``), and `ath` when presented with an access token.
public struct DPoPVerifier: Sendable {
    public static let window: TimeInterval = 60
    let cache: any Cache
    let now: @Sendable () -> Date

    public init(cache: any Cache, now: @escaping @Sendable () -> Date = Date.init) {
        self.cache = cache
        self.now = now
    }

    /// Returns the proof key's thumbprint (`jkt`).
    /// - Parameter nonce: when set, the proof's `nonce` claim must satisfy it, else
    ///   ``TokenRejection/dpopNonceRequired`` (checked before the `jti` is recorded, so the
    ///   client can retry with a new proof).
    public func verify(
        proof: String, method: String, url: String, accessToken: String?, nonce: (@Sendable (String) -> Bool)? = nil
    ) async throws -> String {
        func fail(_ d: String) -> TokenRejection { .invalidDPoPProof(d) }
        guard let parsed = try? JWS.parse(proof) else { throw fail("malformed DPoP proof") }
        guard parsed.header["typ"]?.stringValue == "dpop+jwt" else { throw fail("DPoP proof typ must be dpop+jwt") }
        guard parsed.header["alg"]?.stringValue == "ES256" else { throw fail("DPoP proofs must use ES256") }
        guard let jwk = parsed.header["jwk"]?.objectValue, let key = JWK.p256PublicKey(jwk) else {
            throw fail("DPoP proof lacks a public P-256 jwk")
        }
        do { try JWS.verify(parsed, key: key) } catch { throw fail("bad DPoP proof signature") }
        guard case .object(let c)? = try? JSONValue.decode(parsed.payload), let htm = c["htm"]?.stringValue,
            let htu = c["htu"]?.stringValue,
            let jti = c["jti"]?.stringValue, !jti.isEmpty, jti.count <= 256, let iat = c["iat"]?.int64Value
        else { throw fail("DPoP proof lacks htm, htu, jti or iat") }
        guard htm == method else { throw fail("DPoP htm does not match the request method") }
        guard Self.normalize(htu) == Self.normalize(url) else { throw fail("DPoP htu does not match the request URL") }
        guard abs(now().timeIntervalSince1970 - TimeInterval(iat)) <= Self.window else {
            throw fail("DPoP proof iat is outside the allowed window")
        }
        if let accessToken {
            let ath = Base64URL.sha256(accessToken)
            guard c["ath"]?.stringValue == ath else { throw fail("DPoP ath does not match the access token") }
        }
        if let nonce {
            guard let presented = c["nonce"]?.stringValue, nonce(presented) else {
                throw TokenRejection.dpopNonceRequired
            }
        }
        let jkt = JWK.thumbprint(key)
        guard try await cache.setIfAbsent("oauth:dpop-jti:\(jkt):\(jti)", [1], ttl: .seconds(Int(Self.window) * 2 + 10))
        else {
            throw fail("DPoP proof was already used")
        }
        return jkt
    }

    /// Scheme and host lower-cased, query and fragment dropped.
    static func normalize(_ url: String) -> String {
        guard var c = URLComponents(string: url) else { return url }
        c.query = nil
        c.fragment = nil
        c.scheme = c.scheme?.lowercased()
        c.host = c.host?.lowercased()
        return c.string ?? url
    }
}
