import Synchronization

/// The one way the gateway races work against a clock: the operation's result, or a cut
/// once the deadline passes. The operation runs as a task of its own, so the answer is on
/// time whether or not the work reacts to cancellation (a task group would await every
/// child first). What happens to the work when it is cut is the caller's choice
/// (``Leftover``): an upstream call or a readiness check is cancelled; a `/home` part
/// finishes in the background, filling the caches it fills, so the next caller finds it done.
public enum CutOff {
    /// What becomes of an operation that was cut.
    public enum Leftover: Sendable {
        /// Cancel it (and do not wait for it).
        case cancel
        /// Let it run to its end, unobserved.
        case finishInBackground
    }

    /// How a race ended.
    public enum Outcome<T: Sendable>: Sendable {
        /// The operation answered (a value or an error) before the deadline.
        case finished(Result<T, any Error>)
        /// The deadline passed first.
        case cut
        /// The caller's task was cancelled first.
        case cancelled
    }

    /// Races `operation` against `deadline` (and against the caller's cancellation).
    public static func outcome<T: Sendable>(
        until deadline: ContinuousClock.Instant, leftover: Leftover,
        _ operation: @escaping @Sendable () async throws -> T
    ) async -> Outcome<T> {
        let answer = FirstAnswer<Outcome<T>>()
        let work = Task {
            do {
                answer.give(.finished(.success(try await operation())))
            } catch {
                answer.give(.finished(.failure(error)))
            }
        }
        let timer = Task {
            try? await Task.sleep(until: deadline, clock: .continuous)
            answer.give(.cut)
        }
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { answer.wait(with: $0) }
        } onCancel: {
            answer.give(.cancelled)
        }
        timer.cancel()
        if case .finished = outcome {} else if leftover == .cancel { work.cancel() }
        return outcome
    }

    /// `operation`'s value, or nil when it throws or `budget` passes first (the work then
    /// finishes in the background).
    public static func value<T: Sendable>(
        within budget: Duration, _ operation: @escaping @Sendable () async throws -> T?
    ) async -> T? {
        guard
            case .finished(.success(let value)) = await outcome(
                until: .now + budget, leftover: .finishInBackground, operation)
        else { return nil }
        return value
    }

    /// `operation`'s result, or `timeout` thrown once `deadline` passes (the work is
    /// cancelled); a cancelled caller gets `CancellationError`.
    public static func run<T: Sendable>(
        until deadline: ContinuousClock.Instant, orThrow timeout: @autoclosure () -> any Error,
        _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        guard ContinuousClock.now < deadline else { throw timeout() }
        switch await outcome(until: deadline, leftover: .cancel, operation) {
        case .finished(let result): return try result.get()
        case .cut: throw timeout()
        case .cancelled: throw CancellationError()
        }
    }
}

/// One continuation resumed by whichever side answers first; later answers are dropped.
/// An answer given before anyone waits is kept for the waiter.
final class FirstAnswer<T: Sendable>: Sendable {
    private enum State {
        case idle
        case waiting(CheckedContinuation<T, Never>)
        case answered(T)
        case done
    }

    private let state = Mutex<State>(.idle)

    func wait(with continuation: CheckedContinuation<T, Never>) {
        let early = state.withLock { state -> T? in
            guard case .answered(let value) = state else {
                state = .waiting(continuation)
                return nil
            }
            state = .done
            return value
        }
        if let early { continuation.resume(returning: early) }
    }

    func give(_ value: T) {
        let waiting = state.withLock { state -> CheckedContinuation<T, Never>? in
            switch state {
            case .idle:
                state = .answered(value)
                return nil
            case .waiting(let continuation):
                state = .done
                return continuation
            case .answered, .done:
                return nil
            }
        }
        waiting?.resume(returning: value)
    }
}
