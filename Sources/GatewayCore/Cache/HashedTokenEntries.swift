import Foundation

/// Values in the shared ``Cache`` under the hash of a random token only their holder has
/// (256 bits; the token itself is never stored), so any replica continues what another
/// began: pending second factors, pending consents.
struct HashedTokenEntries<Value: Codable & Sendable>: Sendable {
    let cache: any Cache
    /// The keys' prefix, such as `oauth:pending`.
    let prefix: String
    let lifetime: Duration

    /// The key of `token`'s entry for `tenantID`.
    func key(_ token: String, tenantID: String) -> String {
        "\(prefix):\(tenantID):" + Base64URL.sha256(token)
    }

    /// Stores `value` for its lifetime; returns its new token.
    func start(_ value: Value, tenantID: String) async throws -> String {
        let token = Base64URL.random(byteCount: 32)
        try await cache.set(key(token, tenantID: tenantID), Array(try JSONEncoder().encode(value)), ttl: lifetime)
        return token
    }

    /// The value; nil when unknown or expired (a token over 128 characters never names one).
    func find(_ token: String, tenantID: String) async throws -> Value? {
        guard token.count <= 128, let bytes = try await cache.get(key(token, tenantID: tenantID)) else { return nil }
        return try? JSONDecoder().decode(Value.self, from: Data(bytes))
    }

    /// Takes the value once; nil when unknown, expired or taken already.
    func take(_ token: String, tenantID: String) async throws -> Value? {
        guard token.count <= 128, let bytes = try await cache.take(key(token, tenantID: tenantID)) else { return nil }
        return try? JSONDecoder().decode(Value.self, from: Data(bytes))
    }
}
