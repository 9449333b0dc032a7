import Foundation

/// Counts failed logins per (tenant, username) and per (tenant, client address) in the
/// ``Cache``; over the limit, logins are refused with the same answer as a bad password.
public struct LoginThrottle: Sendable {
    /// Failed attempts allowed per window.
    public struct Limits: Sendable {
        public var perUser: Int64
        public var perAddress: Int64

        public init(perUser: Int64 = 5, perAddress: Int64 = 50) {
            self.perUser = perUser
            self.perAddress = perAddress
        }
    }

    let cache: any Cache
    public let perUser: Int64
    public let perAddress: Int64
    public let window: Duration

    public init(cache: any Cache, limits: Limits, window: Duration = .seconds(900)) {
        self.init(cache: cache, perUser: limits.perUser, perAddress: limits.perAddress, window: window)
    }

    public init(cache: any Cache, perUser: Int64 = 5, perAddress: Int64 = 50, window: Duration = .seconds(900)) {
        self.cache = cache
        self.perUser = perUser
        self.perAddress = perAddress
        self.window = window
    }

    private func keys(_ tenantID: String, _ username: String, _ address: String?) -> [(String, Int64)] {
        var keys = [("oauth:login-fail:u:\(tenantID):\(username.lowercased())", perUser)]
        if let address { keys.append(("oauth:login-fail:a:\(tenantID):\(address)", perAddress)) }
        return keys
    }

    /// Whether a login attempt may proceed.
    public func allows(tenantID: String, username: String, address: String?) async -> Bool {
        for (key, limit) in keys(tenantID, username, address) {
            if let bytes = try? await cache.get(key), let n = Int64(String(decoding: bytes, as: UTF8.self)), n >= limit { return false }
        }
        return true
    }

    /// Records a failure.
    public func recordFailure(tenantID: String, username: String, address: String?) async {
        for (key, _) in keys(tenantID, username, address) {
            _ = try? await cache.increment(key, by: 1, ttl: window)
        }
    }
}
