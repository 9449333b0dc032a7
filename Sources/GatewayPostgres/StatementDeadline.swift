import GatewayCore
import PostgresNIO
import Synchronization

/// Bounds how long a statement or a transaction may go unanswered. Found by `make chaos`
/// (issue 33): when PostgreSQL is killed, postgres-nio can hand a statement to a connection
/// that is closing in the same moment; the write fails unseen and the answer never comes, so
/// the request hung until the client gave up (20-60 s). A rollback on such a connection hangs
/// the same way, so a transaction is bounded as a whole. Past the deadline the caller gets
/// ``DatabaseUnavailable`` (503, retry) and the work is left to finish or fail in the
/// background (a transaction may still commit: a 503 after a timeout is an unknown outcome).
///
/// With a ``DatabaseBreaker`` (issue 47), a statement is refused at once while the breaker is
/// open, and one already waiting is refused the moment it opens.
enum StatementDeadline {
    /// Runs `operation`; after `limit` (nil: never), or when the request's ``DatabaseBudget``
    /// runs out if sooner, throws ``DatabaseUnavailable`` instead.
    /// `late` gets a value that arrived after the deadline (to drain rows, say).
    static func run<Value: Sendable>(
        _ limit: Duration?, breaker: DatabaseBreaker? = nil, late: @escaping @Sendable (Value) async -> Void = { _ in },
        _ operation: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        try breaker?.check()
        guard let limit = DatabaseBudget.remaining(capping: limit) else { return try await operation() }
        guard limit > .zero else { throw DatabaseUnavailable(reason: "the request's database time is spent") }
        let race = DeadlineRace<Value>()
        return try await withCheckedThrowingContinuation { continuation in
            race.start(limit: limit, breaker: breaker, continuation: continuation, operation: operation, late: late)
        }
    }

    /// A statement's rows nobody will read: drained, so its lease goes back to the pool.
    static func drain(_ rows: PostgresRowSequence) async {
        do { for try await _ in rows {} } catch {}
    }
}

/// One operation against its timer (and the breaker opening): whichever ends first resumes the
/// caller, once.
private final class DeadlineRace<Value: Sendable>: Sendable {
    private struct State {
        var finished = false
        var timer: Task<Void, Never>?
        var watch: (breaker: DatabaseBreaker, token: Int)?
    }

    private let state = Mutex(State())

    /// True for the first caller only; stops the timer and the breaker's watch.
    private func claim() -> Bool {
        let (won, watch) = state.withLock { state -> (Bool, (breaker: DatabaseBreaker, token: Int)?) in
            guard !state.finished else { return (false, nil) }
            state.finished = true
            state.timer?.cancel()
            defer { state.watch = nil }
            return (true, state.watch)
        }
        if let watch { watch.breaker.unwatch(watch.token) }
        return won
    }

    func start(
        limit: Duration, breaker: DatabaseBreaker?, continuation: CheckedContinuation<Value, any Error>,
        operation: @escaping @Sendable () async throws -> Value, late: @escaping @Sendable (Value) async -> Void
    ) {
        let work = Task {
            do {
                let value = try await operation()
                if claim() { continuation.resume(returning: value) } else { await late(value) }
            } catch {
                if claim() { continuation.resume(throwing: error) }
            }
        }
        let timer = Task {
            try? await Task.sleep(for: limit)
            guard !Task.isCancelled, claim() else { return }
            work.cancel()
            continuation.resume(throwing: DatabaseUnavailable(reason: "no answer within \(limit)"))
        }
        let refuse: @Sendable () -> Void = { [self] in
            guard claim() else { return }
            work.cancel()
            continuation.resume(throwing: DatabaseBreaker.refusal)
        }
        let token = breaker?.watch(refuse)
        let finished = state.withLock { state in
            state.timer = timer
            if let breaker, let token { state.watch = (breaker, token) }
            return state.finished
        }
        if finished {
            timer.cancel()
            if let breaker, let token { breaker.unwatch(token) }
        } else if breaker != nil, token == nil {
            refuse()  // opened between the check and the watch
        }
    }
}
