import Synchronization

/// Caps the calls in flight to one upstream; a call over the cap is refused at once
/// (``UpstreamError/overloaded``) rather than queued, so a slow upstream cannot absorb
/// every task of the gateway.
public final class Bulkhead: Sendable {
    private let limit: Int
    private let inFlight = Mutex(0)

    public init(limit: Int) {
        self.limit = limit
    }

    /// Calls currently holding a permit.
    public var current: Int { inFlight.withLock { $0 } }

    /// Runs `body` holding a permit, or throws ``UpstreamError/overloaded``.
    public func run<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        let admitted = inFlight.withLock { count -> Bool in
            guard count < limit else { return false }
            count += 1
            return true
        }
        guard admitted else { throw UpstreamError.overloaded }
        defer { inFlight.withLock { $0 -= 1 } }
        return try await body()
    }
}
