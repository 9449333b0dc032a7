/// Bounds async work by an instant of the continuous clock.
public enum Deadline {
    /// `operation`'s result, or ``UpstreamError/timeout`` once `deadline` passes
    /// (the operation is cancelled).
    public static func run<T: Sendable>(until deadline: ContinuousClock.Instant, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        guard ContinuousClock.now < deadline else { throw UpstreamError.timeout }
        return try await withThrowingTaskGroup(of: T.self) { group in
            group.addTask { try await operation() }
            group.addTask {
                try await Task.sleep(until: deadline, clock: .continuous)
                throw UpstreamError.timeout
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw UpstreamError.timeout }
            return first
        }
    }
}
