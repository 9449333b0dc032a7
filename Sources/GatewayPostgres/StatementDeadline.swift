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
enum StatementDeadline {
    /// Runs `operation`; after `limit` (nil: never), or when the request's ``DatabaseBudget``
    /// runs out if sooner, throws ``DatabaseUnavailable`` instead.
    /// `late` gets a value that arrived after the deadline (to drain rows, say).
    static func run<Value: Sendable>(
        _ limit: Duration?, late: @escaping @Sendable (Value) async -> Void = { _ in },
        _ operation: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        guard let limit = DatabaseBudget.remaining(capping: limit) else { return try await operation() }
        guard limit > .zero else { throw DatabaseUnavailable(reason: "the request's database time is spent") }
        let race = DeadlineRace<Value>()
        return try await withCheckedThrowingContinuation { continuation in
            race.start(limit: limit, continuation: continuation, operation: operation, late: late)
        }
    }

    /// A statement's rows nobody will read: drained, so its lease goes back to the pool.
    static func drain(_ rows: PostgresRowSequence) async {
        do { for try await _ in rows {} } catch {}
    }
}

/// One operation against its timer: whichever ends first resumes the caller, once.
private final class DeadlineRace<Value: Sendable>: Sendable {
    private let state = Mutex<(finished: Bool, timer: Task<Void, Never>?)>((false, nil))

    /// True for the first caller only; stops the timer.
    private func claim() -> Bool {
        state.withLock { state in
            guard !state.finished else { return false }
            state.finished = true
            state.timer?.cancel()
            return true
        }
    }

    func start(
        limit: Duration, continuation: CheckedContinuation<Value, any Error>,
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
        let finished = state.withLock { state in
            state.timer = timer
            return state.finished
        }
        if finished { timer.cancel() }
    }
}
