import Synchronization

/// A circuit breaker for one tenant × upstream.
///
/// Closed: calls pass; outcomes are counted in a fixed window. When at least
/// `minimumCalls` ended in the window and the failure ratio reaches `failureRatio`, it
/// opens for `openDuration` (calls are refused at once). Then it is half-open: up to
/// `halfOpenProbes` calls pass; a success closes it, a failure opens it again.
public final class CircuitBreaker: Sendable {
    public struct Configuration: Sendable, Equatable {
        public var window: Duration
        public var minimumCalls: Int
        public var failureRatio: Double
        public var openDuration: Duration
        public var halfOpenProbes: Int

        public init(
            window: Duration = .seconds(10), minimumCalls: Int = 10, failureRatio: Double = 0.5,
            openDuration: Duration = .seconds(5), halfOpenProbes: Int = 1
        ) {
            self.window = window
            self.minimumCalls = minimumCalls
            self.failureRatio = failureRatio
            self.openDuration = openDuration
            self.halfOpenProbes = halfOpenProbes
        }
    }

    /// The observable phase (tests, metrics).
    public enum Phase: Sendable, Equatable {
        case closed, open, halfOpen
    }

    private struct State {
        var phase: Phase = .closed
        var windowStart: ContinuousClock.Instant
        var calls = 0
        var failures = 0
        var openUntil: ContinuousClock.Instant?
        var probesInFlight = 0
    }

    private let configuration: Configuration
    private let state: Mutex<State>
    private let onTransition: @Sendable (Phase) -> Void
    private let now: @Sendable () -> ContinuousClock.Instant

    /// - Parameters:
    ///   - onTransition: told each new phase (metrics), outside the breaker's lock.
    ///   - now: the clock (tests move it by hand).
    public init(
        configuration: Configuration = Configuration(), onTransition: @escaping @Sendable (Phase) -> Void = { _ in },
        now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }
    ) {
        self.configuration = configuration
        self.onTransition = onTransition
        self.now = now
        state = Mutex(State(windowStart: now()))
    }

    /// The current phase (an open breaker whose time is up reports half-open).
    public var phase: Phase {
        state.withLock { state in
            if state.phase == .open, let until = state.openUntil, now() >= until { return .halfOpen }
            return state.phase
        }
    }

    /// Asks to make a call; false means refuse it (circuit open or probes taken).
    public func acquire() -> Bool {
        let now = self.now()
        let (allowed, changed) = state.withLock { state -> (Bool, Phase?) in
            switch state.phase {
            case .closed:
                return (true, nil)
            case .open:
                guard let until = state.openUntil, now >= until else { return (false, nil) }
                state.phase = .halfOpen
                state.probesInFlight = 1
                return (true, .halfOpen)
            case .halfOpen:
                guard state.probesInFlight < configuration.halfOpenProbes else { return (false, nil) }
                state.probesInFlight += 1
                return (true, nil)
            }
        }
        if let changed { onTransition(changed) }
        return allowed
    }

    /// Reports the outcome of a call that ``acquire()`` allowed.
    public func record(failure: Bool) {
        let now = self.now()
        let changed = state.withLock { state -> Phase? in
            switch state.phase {
            case .halfOpen:
                state.probesInFlight = max(0, state.probesInFlight - 1)
                if failure {
                    open(&state, now: now)
                    return .open
                }
                state = State(windowStart: now)
                return .closed
            case .open:
                return nil
            case .closed:
                if now - state.windowStart >= configuration.window {
                    state.windowStart = now
                    state.calls = 0
                    state.failures = 0
                }
                state.calls += 1
                if failure { state.failures += 1 }
                if state.calls >= configuration.minimumCalls,
                   Double(state.failures) / Double(state.calls) >= configuration.failureRatio {
                    open(&state, now: now)
                    return .open
                }
                return nil
            }
        }
        if let changed { onTransition(changed) }
    }

    private func open(_ state: inout State, now: ContinuousClock.Instant) {
        state.phase = .open
        state.openUntil = now + configuration.openDuration
        state.calls = 0
        state.failures = 0
        state.probesInFlight = 0
    }
}
