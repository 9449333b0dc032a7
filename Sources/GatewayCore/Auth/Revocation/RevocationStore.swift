/// The durable record of revoked token ids, each kept until the token it names expires.
///
/// It is the source of truth behind ``RevokedTokens``: a revocation is written here first,
/// then announced (Redis) for the other replicas' in-process mirrors. A replica that
/// starts, or whose feed broke, loads from here; when Redis cannot answer, lookups come here.
public protocol RevocationStore: Sendable {
    /// Records `key` revoked until `until` (ms since 1970); a later end wins.
    func record(_ key: String, until: Int64) async throws
    /// Whether `key` is revoked at `now`.
    func isRecorded(_ key: String, now: Int64) async throws -> Bool
    /// Revocations still in force at `now` recorded after `cursor` (0 = all), and the cursor
    /// to pass next time.
    func revocations(after cursor: Int64, now: Int64) async throws -> (entries: [String: Int64], cursor: Int64)
    /// Deletes revocations whose token has expired; returns how many.
    @discardableResult
    func purge(now: Int64) async throws -> Int
}
