import Synchronization

/// Answers on time whatever the work underneath does: the value of an operation, or nil
/// once a budget passes. Unlike a task group (which awaits every child before it returns,
/// so work that ignores cancellation holds the answer up), the operation runs as a task of
/// its own. When it is cut it is neither awaited nor cancelled: it finishes in the
/// background, filling whatever caches it fills, so the next caller finds it done.
public enum CutOff {
    /// `operation`'s value, or nil when it throws or `budget` passes first.
    public static func value<T: Sendable>(within budget: Duration, _ operation: @escaping @Sendable () async throws -> T?) async -> T? {
        let answer = FirstAnswer<T?>()
        return await withCheckedContinuation { continuation in
            answer.wait(with: continuation)
            let timer = Task {
                try? await Task.sleep(for: budget)
                answer.give(nil)
            }
            Task {
                let value = try? await operation()
                answer.give(value ?? nil)
                timer.cancel()
            }
        }
    }
}

/// One continuation resumed by whichever side answers first; later answers are dropped.
final class FirstAnswer<T: Sendable>: Sendable {
    private let continuation = Mutex<CheckedContinuation<T, Never>?>(nil)

    func wait(with continuation: CheckedContinuation<T, Never>) {
        self.continuation.withLock { $0 = continuation }
    }

    func give(_ value: T) {
        let waiting = continuation.withLock { stored -> CheckedContinuation<T, Never>? in
            defer { stored = nil }
            return stored
        }
        waiting?.resume(returning: value)
    }
}
