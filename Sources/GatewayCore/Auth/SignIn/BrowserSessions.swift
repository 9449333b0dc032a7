import Foundation

/// A browser's single sign-on session at a tenant (issue 63 §6): who signed in, when, and how.
public struct BrowserSession: Sendable, Codable, Equatable {
    public var subject: String
    /// When the person last actively authenticated (Unix seconds): the ID tokens' `auth_time`.
    public var authTime: Int64
    /// How (RFC 8176 values: `pwd`, `otp`, `sms`, `mail`).
    public var amr: [String]
    /// When the session began (milliseconds, against the user's watermark).
    public var startedAtMS: Int64
    public var expiresAt: Date

    /// The authentication context class it meets.
    public var acr: String { AuthorizationServer.acr(of: amr) }
}

/// The tenants' browser sessions (issue 63 §6): after a sign-in on the hosted pages, the
/// browser holds a cookie whose random value names a session in the shared cache (by its keyed
/// digest, so a copy of the cache opens no session), and `/oauth2/authorize` signs the person in
/// silently for any client of the tenant while it lives: `prompt=none` works, `prompt=login`
/// and `max_age` ask again. Logout ends it; a recovery or "sign out everywhere" ends every
/// session of the user (a per-user watermark: sessions from before it no longer count).
public struct BrowserSessions: Sendable {
    /// How long a session lives after its sign-in.
    public static let lifetime: Duration = .seconds(12 * 3_600)

    private let cache: any Cache
    private let sealer: SecretSealer
    private let clock: WallClock

    public init(cache: any Cache, sealer: SecretSealer, clock: WallClock) {
        self.cache = cache
        self.sealer = sealer
        self.clock = clock
    }

    /// A new session for `subject`, signed in by `amr` at `authTime` (default now); returns the
    /// cookie's value (32 random bytes, base64url).
    public func start(tenantID: String, subject: String, amr: [String], authTime: Int64? = nil) async throws -> String {
        let value = Base64URL.random(byteCount: 32)
        let now = clock.now()
        let session = BrowserSession(
            subject: subject, authTime: authTime ?? Int64(now.timeIntervalSince1970), amr: amr,
            startedAtMS: StoreClock.milliseconds(now), expiresAt: now.addingTimeInterval(Double(Self.lifetime.components.seconds)))
        try await cache.set(key(tenantID, value), Array(try JSONEncoder().encode(session)), ttl: Self.lifetime)
        return value
    }

    /// The live session a cookie's value names; nil when unknown, expired, or ended by its
    /// user's watermark.
    public func current(tenantID: String, value: String?) async throws -> BrowserSession? {
        guard let value, Base64URL.isEncoding(value, ofByteCount: 32),
            let bytes = try await cache.get(key(tenantID, value)),
            let session = try? JSONDecoder().decode(BrowserSession.self, from: Data(bytes)),
            session.expiresAt > clock.now()
        else { return nil }
        if let mark = try await cache.get(watermark(tenantID, session.subject)),
            let since = Int64(String(decoding: mark, as: UTF8.self)), session.startedAtMS < since
        {
            return nil
        }
        return session
    }

    /// Ends the session a cookie's value names (logout).
    public func end(tenantID: String, value: String?) async throws {
        guard let value, Base64URL.isEncoding(value, ofByteCount: 32) else { return }
        _ = try await cache.take(key(tenantID, value))
    }

    /// Ends every session of `subject` begun before now (a recovery, "sign out everywhere").
    public func endAll(tenantID: String, subject: String) async throws {
        let now = StoreClock.milliseconds(clock.now())
        try await cache.set(watermark(tenantID, subject), Array(String(now).utf8), ttl: Self.lifetime)
    }

    private func key(_ tenantID: String, _ value: String) -> String {
        "sso:\(tenantID):\(sealer.fingerprint(value, context: "sso:\(tenantID)"))"
    }

    private func watermark(_ tenantID: String, _ subject: String) -> String {
        "sso:\(tenantID):since:\(CacheKey.escape(subject))"
    }
}
