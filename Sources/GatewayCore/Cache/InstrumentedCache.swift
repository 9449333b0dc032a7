import Metrics

/// Wraps a ``Cache`` and counts hits, misses and backend errors
/// (`gateway_cache_hits_total`, `gateway_cache_misses_total`, `gateway_cache_errors_total`,
/// labelled by backend kind). Errors are counted and rethrown.
public struct InstrumentedCache: Cache {
    private let base: any Cache
    private let hits: Counter
    private let misses: Counter
    private let errors: Counter

    public var kind: String { base.kind }

    public init(_ base: any Cache, factory: any MetricsFactory) {
        self.base = base
        let dimensions = [("backend", base.kind)]
        hits = Counter(label: "gateway_cache_hits_total", dimensions: dimensions, factory: factory)
        misses = Counter(label: "gateway_cache_misses_total", dimensions: dimensions, factory: factory)
        errors = Counter(label: "gateway_cache_errors_total", dimensions: dimensions, factory: factory)
    }

    public func get(_ key: String) async throws -> [UInt8]? {
        let value = try await counted { try await base.get(key) }
        (value == nil ? misses : hits).increment()
        return value
    }

    public func getMany(_ keys: [String]) async throws -> [[UInt8]?] {
        let values = try await counted { try await base.getMany(keys) }
        let found = values.reduce(0) { $0 + ($1 == nil ? 0 : 1) }
        hits.increment(by: found)
        misses.increment(by: values.count - found)
        return values
    }

    public func set(_ key: String, _ value: [UInt8], ttl: Duration) async throws {
        try await counted { try await base.set(key, value, ttl: ttl) }
    }

    public func setIfAbsent(_ key: String, _ value: [UInt8], ttl: Duration) async throws -> Bool {
        try await counted { try await base.setIfAbsent(key, value, ttl: ttl) }
    }

    public func take(_ key: String) async throws -> [UInt8]? {
        try await counted { try await base.take(key) }
    }

    public func replace(_ key: String, with value: [UInt8], ttl: Duration) async throws -> [UInt8]? {
        try await counted { try await base.replace(key, with: value, ttl: ttl) }
    }

    @discardableResult
    public func delete(_ keys: [String]) async throws -> Int {
        try await counted { try await base.delete(keys) }
    }

    public func increment(_ key: String, by: Int64, ttl: Duration) async throws -> Int64 {
        try await counted { try await base.increment(key, by: by, ttl: ttl) }
    }

    public func ping() async throws {
        try await counted { try await base.ping() }
    }

    private func counted<T>(_ operation: () async throws -> T) async throws -> T {
        do {
            return try await operation()
        } catch {
            errors.increment()
            throw error
        }
    }
}
