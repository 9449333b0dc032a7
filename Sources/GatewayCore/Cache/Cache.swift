/// A byte cache shared by the gateway's features: Redis in production and tests, an
/// in-process LRU without a Redis URL.
///
/// Values are the serialized answer bytes, served as-is on a hit. Implementations
/// report their failures as thrown errors; callers decide whether a cache failure is
/// fatal (usually not: they fall through to the source).
public protocol Cache: Sendable {
    /// Short name for logs and readiness: `redis` or `memory`.
    var kind: String { get }
    /// The stored bytes, or nil on a miss or after expiry.
    func get(_ key: String) async throws -> [UInt8]?
    /// The stored bytes of each of `keys`, in order (nil: a miss), in one round trip where
    /// the backend can (Redis `MGET`).
    func getMany(_ keys: [String]) async throws -> [[UInt8]?]
    /// Stores `value` under `key` for `ttl`.
    func set(_ key: String, _ value: [UInt8], ttl: Duration) async throws
    /// Stores only when the key is absent; true when stored. (Locks, single-use markers.)
    func setIfAbsent(_ key: String, _ value: [UInt8], ttl: Duration) async throws -> Bool
    /// Reads and removes in one step (single-use artefacts such as authorization codes).
    func take(_ key: String) async throws -> [UInt8]?
    /// Replaces the value of a key that is there (with `ttl` from now) and answers what it
    /// held, in one step; nil, and nothing stored, when the key is absent. (An authorization
    /// code becomes the marker of the tokens it produced.)
    func replace(_ key: String, with value: [UInt8], ttl: Duration) async throws -> [UInt8]?
    /// Removes keys; returns how many existed.
    @discardableResult
    func delete(_ keys: [String]) async throws -> Int
    /// Adds `by` to an integer counter, creating it with `ttl` when absent; returns the new value.
    func increment(_ key: String, by: Int64, ttl: Duration) async throws -> Int64
    /// Checks the backing store answers (readiness).
    func ping() async throws
}

/// The shared cache could not be reached (Redis down, failing over, or too slow): the request
/// may succeed when retried in a moment.
public struct CacheUnavailable: Error, Sendable, CustomStringConvertible {
    /// What the client library reported; for logs only.
    public let reason: String

    public init(reason: String) {
        self.reason = reason
    }

    public var description: String { "cache unavailable: \(reason)" }
}

extension Cache {
    /// One ``get(_:)`` per key, for backends without a multi-key read.
    public func getMany(_ keys: [String]) async throws -> [[UInt8]?] {
        var values: [[UInt8]?] = []
        values.reserveCapacity(keys.count)
        for key in keys { values.append(try await get(key)) }
        return values
    }
}
