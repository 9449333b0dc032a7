import Foundation
import RedisClient

/// ``RevocationFeed`` over Redis: each revocation is a key with a TTL (direct lookups),
/// a member of one sorted set scored by its end (the full load), and a message on one
/// pub/sub channel (live updates) — written by one Lua script, so the three never
/// disagree.
public struct RedisRevocationFeed: RevocationFeed {
    private let client: RedisClient
    private let namespace: String

    /// - Parameter namespace: prefix of keys and channel (as ``RedisCache``'s).
    public init(client: RedisClient, namespace: String = "gw:") {
        self.client = client
        self.namespace = namespace
    }

    private var indexKey: String { namespace + "revoked-index" }
    private var channel: String { namespace + "revoked" }

    /// KEYS: record, index. ARGV: until-ms, now-ms, member, channel.
    private static let script = """
        local ttl = tonumber(ARGV[1]) - tonumber(ARGV[2])
        if ttl < 1 then ttl = 1 end
        redis.call('SET', KEYS[1], '1', 'PX', ttl)
        redis.call('ZADD', KEYS[2], ARGV[1], ARGV[3])
        redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[2])
        redis.call('PUBLISH', ARGV[4], ARGV[1] .. ' ' .. ARGV[3])
        return 1
        """

    public func record(_ key: String, until: Int64) async throws {
        let now = CachedAnswer.now()
        _ = try await client.eval(
            script: Self.script, keys: [namespace + key, indexKey],
            arguments: [Array(String(until).utf8), Array(String(now).utf8), Array(key.utf8), Array(channel.utf8)]
        )
    }

    public func isRecorded(_ key: String) async throws -> Bool {
        try await client.get(namespace + key) != nil
    }

    public func loadAll() async throws -> [String: Int64] {
        Self.entries(
            try await client.send(["ZRANGEBYSCORE", indexKey, String(CachedAnswer.now()), "+inf", "WITHSCORES"]))
    }

    public func follow(
        into mirror: RevocationMirror, load: @escaping @Sendable () async throws -> [String: Int64]
    ) async throws {
        let subscription = try await client.subscribe([channel])
        defer { mirror.unsynced() }
        try await withTaskCancellationHandler {
            let entries = try await load()
            mirror.synced(with: entries, now: CachedAnswer.now())
            for try await message in subscription {
                guard let (key, until) = Self.parse(message.message) else { continue }
                mirror.add(key, until: until, now: CachedAnswer.now())
            }
        } onCancel: {
            Task { await subscription.close() }
        }
    }

    /// `member score member score ...` → member → score.
    static func entries(_ reply: RESPValue) -> [String: Int64] {
        guard let values = reply.array else { return [:] }
        var result: [String: Int64] = [:]
        var index = 0
        while index + 1 < values.count {
            if let member = values[index].string, let score = values[index + 1].string.flatMap({ Double($0) }) {
                result[member] = Int64(score)
            }
            index += 2
        }
        return result
    }

    /// `"{until} {key}"`.
    static func parse(_ message: [UInt8]) -> (String, Int64)? {
        guard let space = message.firstIndex(of: UInt8(ascii: " ")),
              let until = Int64(String(decoding: message[..<space], as: UTF8.self))
        else { return nil }
        return (String(decoding: message[(space + 1)...], as: UTF8.self), until)
    }
}
