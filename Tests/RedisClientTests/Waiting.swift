import RedisClient

/// Polls `condition` every `interval` until it holds (a thrown error counts as "not yet") or
/// `limit` passes; whether it held. The one place these tests wait on the wall clock for
/// something to happen elsewhere (a server starting, a failover, a key expiring).
func eventually(
    within limit: Duration, every interval: Duration = .milliseconds(20), _ condition: () async throws -> Bool
) async -> Bool {
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
        if (try? await condition()) == true { return true }
        try? await Task.sleep(for: interval)
    }
    return (try? await condition()) == true
}

/// `body`'s value, or `RedisError.timeout` once `limit` has passed (the body is then cancelled).
func within<T: Sendable>(_ limit: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask(operation: body)
        group.addTask {
            try await Task.sleep(for: limit)
            throw RedisError.timeout
        }
        defer { group.cancelAll() }
        return try await group.next()!
    }
}
