import Foundation
import Synchronization

/// A breaker on the database, as upstreams have theirs: while the database does not answer,
/// a request that needs it is refused at once (``DatabaseUnavailable``: 503
/// `database_unavailable` with `Retry-After`) instead of waiting for its statement deadline,
/// and statements already waiting are refused the moment the breaker opens. What needs no
/// database (stored answers, verified tokens, JWKS, discovery) keeps serving.
///
/// A probe decides, not the requests: ``run(probe:)`` asks the database a trivial question on
/// a connection of its own every ``Policy/probeInterval``; ``Policy/failuresToOpen`` probes in a
/// row without an answer within ``Policy/probeTimeout`` (after the first, each asked at once)
/// open the breaker, and the first probe answered closes it. With the defaults an outage opens
/// it within 0.95 s of the last answer (250 ms + 2 × 350 ms). A request that saw its connection lost reports it
/// (``connectionLost()``), which makes the next probe come at once.
public final class DatabaseBreaker: Sendable {
    public struct Policy: Sendable, Equatable {
        /// How often the probe asks while the database answers, and while it does not.
        public var probeInterval: Duration
        /// How long one probe may go unanswered.
        public var probeTimeout: Duration
        /// Unanswered probes in a row that open the breaker.
        public var failuresToOpen: Int

        public init(
            probeInterval: Duration = .milliseconds(250), probeTimeout: Duration = .milliseconds(350),
            failuresToOpen: Int = 2
        ) {
            self.probeInterval = probeInterval
            self.probeTimeout = probeTimeout
            self.failuresToOpen = max(1, failuresToOpen)
        }
    }

    private struct State {
        var open = false
        var failures = 0
        var opens = 0
        var nextWatcher = 0
        var watchers: [Int: @Sendable () -> Void] = [:]
        var wake: (@Sendable () -> Void)?
    }

    public let policy: Policy
    private let state = Mutex(State())
    /// Told when the breaker opens or closes (a log line, a metric).
    private let onChange: @Sendable (_ open: Bool) -> Void

    public init(policy: Policy = .init(), onChange: @escaping @Sendable (_ open: Bool) -> Void = { _ in }) {
        self.policy = policy
        self.onChange = onChange
    }

    /// Whether requests that need the database are refused now.
    public var isOpen: Bool { state.withLock { $0.open } }

    /// How many times it has opened.
    public var opens: Int { state.withLock { $0.opens } }

    /// The refusal of a request while the breaker is open.
    public static let refusal = DatabaseUnavailable(
        reason: "the database does not answer; requests that need it are refused until it does")

    /// Throws ``refusal`` while the breaker is open.
    public func check() throws(DatabaseUnavailable) {
        if isOpen { throw Self.refusal }
    }

    /// Calls `onOpen` once if the breaker opens while the watch lasts; nil (and no call) when it
    /// is open already. Pass the token to ``unwatch(_:)`` when the watched work ends.
    public func watch(_ onOpen: @escaping @Sendable () -> Void) -> Int? {
        state.withLock { state in
            guard !state.open else { return nil }
            state.nextWatcher += 1
            state.watchers[state.nextWatcher] = onOpen
            return state.nextWatcher
        }
    }

    public func unwatch(_ token: Int) {
        _ = state.withLock { $0.watchers.removeValue(forKey: token) }
    }

    /// A request lost its connection: probe now rather than at the next interval.
    public func connectionLost() {
        state.withLock { $0.wake }?()
    }

    /// Records one probe's outcome; opens or closes the breaker as the policy says.
    public func record(probeAnswered answered: Bool) {
        let (changed, watchers) = state.withLock { state -> (Bool?, [@Sendable () -> Void]) in
            if answered {
                state.failures = 0
                guard state.open else { return (nil, []) }
                state.open = false
                return (false, [])
            }
            state.failures += 1
            guard !state.open, state.failures >= policy.failuresToOpen else { return (nil, []) }
            state.open = true
            state.opens += 1
            defer { state.watchers = [:] }
            return (true, Array(state.watchers.values))
        }
        for watcher in watchers { watcher() }
        if let changed { onChange(changed) }
    }

    /// Probes until cancelled: `probe` must throw when the database does not answer within the
    /// timeout it is given (``Policy/probeTimeout``), and must return by then either way.
    public func run(probe: @escaping @Sendable (_ timeout: Duration) async throws -> Void) async {
        while !Task.isCancelled {
            let answered = (try? await probe(policy.probeTimeout)) != nil
            if Task.isCancelled { return }
            record(probeAnswered: answered)
            // A probe unanswered while closed is asked again at once: an outage opens the breaker
            // within `failuresToOpen` timeouts of the last answer, not intervals more.
            if !answered, !isOpen { continue }
            await pause()
        }
    }

    /// Waits one probe interval, or less when a request reports a lost connection.
    private func pause() async {
        let (wakes, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        state.withLock { $0.wake = { wake.yield() } }
        let interval = policy.probeInterval
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(for: interval) }
            group.addTask { for await _ in wakes { return } }
            await group.next()
            group.cancelAll()
        }
        wake.finish()
        state.withLock { $0.wake = nil }
    }

}
