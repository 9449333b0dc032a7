import RedisClient

/// ``Cache`` over a real Redis through ``RedisClient`` (shared across replicas).
public struct RedisCache: Cache {
    private let client: RedisClient
    /// Prefix of every key, so several gateways (or tests) can share one Redis.
    private let namespace: String

    public var kind: String { "redis" }

    public init(client: RedisClient, namespace: String = "gw:") {
        self.client = client
        self.namespace = namespace
    }

    public func get(_ key: String) async throws -> [UInt8]? {
        try await reaching { try await client.get(namespace + key) }
    }

    /// `MGET`, 1,000 keys a command.
    public func getMany(_ keys: [String]) async throws -> [[UInt8]?] {
        var values: [[UInt8]?] = []
        values.reserveCapacity(keys.count)
        for start in stride(from: 0, to: keys.count, by: 1_000) {
            let slice = keys[start..<min(start + 1_000, keys.count)].map { namespace + $0 }
            values += try await reaching { try await client.mget(slice) }
        }
        return values
    }

    public func set(_ key: String, _ value: [UInt8], ttl: Duration) async throws {
        _ = try await reaching {
            try await client.set(namespace + key, value, expiration: .milliseconds(Self.milliseconds(ttl)))
        }
    }

    public func setIfAbsent(_ key: String, _ value: [UInt8], ttl: Duration) async throws -> Bool {
        try await reaching {
            try await client.set(
                namespace + key, value, expiration: .milliseconds(Self.milliseconds(ttl)), condition: .ifNotExists)
        }
    }

    public func take(_ key: String) async throws -> [UInt8]? {
        try await reaching { try await client.getdel(namespace + key) }
    }

    /// `SET key value PX ttl XX GET`: one command.
    public func replace(_ key: String, with value: [UInt8], ttl: Duration) async throws -> [UInt8]? {
        try await reaching {
            try await client.setReturningOld(
                namespace + key, value, expiration: .milliseconds(Self.milliseconds(ttl)), condition: .ifExists)
        }
    }

    @discardableResult
    public func delete(_ keys: [String]) async throws -> Int {
        guard !keys.isEmpty else { return 0 }
        return try await reaching { try await client.del(keys.map { namespace + $0 }) }
    }

    /// INCRBY, then PEXPIRE only when this call created the counter (value == by), so a
    /// fixed window keeps the expiry it started with.
    public func increment(_ key: String, by: Int64, ttl: Duration) async throws -> Int64 {
        try await reaching {
            let value = try await client.incrby(namespace + key, by)
            if value == by {
                _ = try await client.pexpire(namespace + key, milliseconds: Self.milliseconds(ttl))
            }
            return value
        }
    }

    public func ping() async throws {
        try await reaching { try await client.ping() }
    }

    /// Runs `operation`; Redis being out of reach (no connection, timeout, shut down) surfaces as
    /// ``CacheUnavailable``, which the server answers with 503 rather than 500.
    private func reaching<T>(_ operation: () async throws -> T) async throws -> T {
        do {
            return try await operation()
        } catch let error as RedisError {
            switch error {
            case .connectionFailed, .timeout, .shutdown: throw CacheUnavailable(reason: error.description)
            case .invalidURL, .server, .protocolError, .unexpectedReply: throw error
            }
        }
    }

    static func milliseconds(_ duration: Duration) -> Int {
        max(1, Int(duration.wholeMilliseconds))
    }
}
