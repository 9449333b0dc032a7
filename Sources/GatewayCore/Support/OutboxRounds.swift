import Synchronization

/// The loop of an outbox worker (push's, the courier's): rounds until cancelled or stopped, a
/// pause after a round that claimed less than a batch, the backlog sampled every so often, a
/// failed round reported and followed by a second's pause.
final class OutboxRounds: Sendable {
    /// Claims per round: a round that takes fewer found the outbox drained.
    let batch: Int
    /// The pause after such a round.
    let idlePoll: Duration
    /// How often `sample` runs.
    let backlogSample: Duration
    /// Set by ``stop()``: no new rounds, and the worker starts no new sends.
    private let stopping = Atomic<Bool>(false)

    init(batch: Int, idlePoll: Duration, backlogSample: Duration) {
        self.batch = batch
        self.idlePoll = idlePoll
        self.backlogSample = backlogSample
    }

    /// Ends the rounds after the current one (a replica shutting down).
    func stop() {
        stopping.store(true, ordering: .relaxed)
    }

    var isStopping: Bool { stopping.load(ordering: .relaxed) }

    /// Runs rounds until the task is cancelled or ``stop()`` is called.
    func run(
        sample: @Sendable () async throws -> Void, round: @Sendable () async throws -> Int,
        failed: @Sendable (any Error) -> Void
    ) async {
        var lastSample = ContinuousClock.now - backlogSample
        while !Task.isCancelled, !isStopping {
            var pause = Duration.zero
            do {
                if lastSample.duration(to: .now) >= backlogSample {
                    lastSample = .now
                    try await sample()
                }
                if try await round() < batch { pause = idlePoll }
            } catch is CancellationError {
                return
            } catch {
                failed(error)
                pause = .seconds(1)
            }
            if pause > .zero {
                do { try await Task.sleep(for: pause) } catch { return }
            }
        }
    }
}
