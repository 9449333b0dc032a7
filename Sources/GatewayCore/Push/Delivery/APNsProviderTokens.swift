import Crypto
import Foundation
import Synchronization

/// APNs provider authentication tokens: an ES256 JWT (`{alg, kid}` + `{iss: team id, iat}`) per
/// signing key, reused and renewed after 50 minutes: Apple refuses a token older than an hour
/// (`ExpiredProviderToken`) and one renewed more often than every 20 minutes
/// (`TooManyProviderTokenUpdates`).
final class APNsProviderTokens: Sendable {
    /// How long one token is used.
    static let lifetime: TimeInterval = 50 * 60

    private struct Token: Sendable {
        let value: String
        let issuedAt: Date
    }

    private let clock: @Sendable () -> Date
    private let tokens = Mutex<[String: Token]>([:])

    init(clock: @escaping @Sendable () -> Date) {
        self.clock = clock
    }

    /// The token for `credentials`; `replacing` names a token APNs called expired, which is then
    /// renewed (once: callers that saw the same token share the renewal).
    func token(for credentials: APNsCredentials, replacing stale: String? = nil) throws -> String {
        let key = Self.key(credentials)
        let now = clock()
        if let cached = tokens.withLock({ $0[key] }), cached.value != stale,
            now.timeIntervalSince(cached.issuedAt) < Self.lifetime, cached.issuedAt <= now
        {
            return cached.value
        }
        let signingKey = try credentials.signingKey()
        let header: [String: JSONValue] = ["alg": "ES256", "kid": .string(credentials.keyID)]
        let claims: [String: JSONValue] = [
            "iss": .string(credentials.teamID), "iat": .number(Double(Int(now.timeIntervalSince1970))),
        ]
        let value = try JWS.sign(claims: claims, header: header) { try signingKey.signature(for: $0).rawRepresentation }
        return tokens.withLock { tokens in
            // Another call may have renewed meanwhile: keep the first renewal.
            if let current = tokens[key], current.value != stale, now.timeIntervalSince(current.issuedAt) < Self.lifetime {
                return current.value
            }
            tokens[key] = Token(value: value, issuedAt: now)
            return value
        }
    }

    /// One entry per team, key id and key material (a replaced key gets a new token at once).
    private static func key(_ credentials: APNsCredentials) -> String {
        let digest = SHA256.hash(data: Data(credentials.privateKey.plaintext.utf8))
        return credentials.teamID + "." + credentials.keyID + "." + LowercaseHex.string(digest)
    }
}
