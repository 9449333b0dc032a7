import Crypto
import Foundation

/// The operator console's server-side sessions (issue 49). A random id in an `HttpOnly`
/// cookie names a record in the shared cache (every replica reads it) that holds the operator
/// realm's tokens the console signed in with: the browser never holds a token. A session ends
/// after ``idle`` without a request (the record's time to live, renewed by each one), at
/// sign-out, or when its operator's sign-in ends (disabled, refresh window over).
public struct ConsoleSessions: Sendable {
    /// What the console keeps for one signed-in browser.
    public struct Session: Codable, Sendable, Equatable {
        public var accessToken: String
        public var accessExpiresAt: Date
        public var refreshToken: String?
        /// The token every state-changing form carries (compared with this, not a cookie).
        public var csrf: String

        public init(accessToken: String, accessExpiresAt: Date, refreshToken: String?, csrf: String) {
            self.accessToken = accessToken
            self.accessExpiresAt = accessExpiresAt
            self.refreshToken = refreshToken
            self.csrf = csrf
        }
    }

    /// A sign-in the console started: the PKCE verifier, kept until the redirect comes back.
    public struct Start: Codable, Sendable, Equatable {
        public var verifier: String
        public var redirectURI: String

        public init(verifier: String, redirectURI: String) {
            self.verifier = verifier
            self.redirectURI = redirectURI
        }
    }

    private let cache: any Cache
    /// How long a session lives without a request.
    public let idle: Duration
    /// How long a started sign-in waits for its redirect.
    public static let startLifetime: Duration = .seconds(600)

    public init(cache: any Cache, idle: Duration = .seconds(30 * 60)) {
        self.cache = cache
        self.idle = idle
    }

    /// Stores `session` under a new id; returns the id (the cookie's value).
    public func create(_ session: Session) async throws -> String {
        let id = Base64URL.random(byteCount: 32)
        try await save(id: id, session)
        return id
    }

    /// The session `id` names, its idle time renewed; nil: unknown, ended or idle too long.
    public func load(id: String) async throws -> Session? {
        guard Self.isID(id), let bytes = try await cache.get(Self.key(id)),
            let session = try? JSONDecoder().decode(Session.self, from: Data(bytes))
        else { return nil }
        try await save(id: id, session)
        return session
    }

    /// Replaces the session `id` names (renewed tokens).
    public func save(id: String, _ session: Session) async throws {
        try await cache.set(Self.key(id), Array(try JSONEncoder().encode(session)), ttl: idle)
    }

    /// Ends the session `id` names.
    public func end(id: String) async throws {
        guard Self.isID(id) else { return }
        _ = try await cache.delete([Self.key(id)])
    }

    /// Remembers a started sign-in under its `state`.
    public func begin(state: String, _ start: Start) async throws {
        try await cache.set(Self.startKey(state), Array(try JSONEncoder().encode(start)), ttl: Self.startLifetime)
    }

    /// The sign-in started with `state`, taken (good once); nil: unknown, used or expired.
    public func finish(state: String) async throws -> Start? {
        guard Self.isID(state), let bytes = try await cache.take(Self.startKey(state)) else { return nil }
        return try? JSONDecoder().decode(Start.self, from: Data(bytes))
    }

    /// Whether `id` has the shape of one of ours (43 base64url characters).
    public static func isID(_ id: String) -> Bool { Base64URL.isEncoding(id, ofByteCount: 32) }

    /// Cache keys hold a digest of the id, so a cache dump does not hand out sessions.
    private static func key(_ id: String) -> String { "console-session:" + Base64URL.sha256(id) }
    private static func startKey(_ state: String) -> String { "console-start:" + Base64URL.sha256(state) }
}
