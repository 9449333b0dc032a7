import Logging
import Synchronization

/// Keeps a repeated warning from flooding the log: the first of a kind is logged at once,
/// then at most one line per `interval` per kind, which says how many were held back
/// (`suppressed`). Kinds are chosen by the caller (e.g. tenant × upstream × reason);
/// metrics, not logs, keep the full counts.
public final class WarningThrottle: Sendable {
    private struct Kind {
        var lastLogged: ContinuousClock.Instant
        var suppressed: Int
    }

    private let kinds = Mutex<[String: Kind]>([:])
    private let interval: Duration
    private let maxKinds: Int
    private let now: @Sendable () -> ContinuousClock.Instant

    /// - Parameters:
    ///   - maxKinds: kinds remembered at once (when full, the memory starts afresh: a
    ///     bounded cost, at worst one extra line per kind).
    ///   - now: the clock (injected in tests).
    public init(
        interval: Duration = .seconds(10), maxKinds: Int = 1_000,
        now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }
    ) {
        self.interval = interval
        self.maxKinds = max(1, maxKinds)
        self.now = now
    }

    /// nil: hold this occurrence back; otherwise log it, noting the number held back since
    /// the last logged one.
    public func admit(_ kind: String) -> Int? {
        let now = now()
        return kinds.withLock { kinds in
            guard var entry = kinds[kind] else {
                if kinds.count >= maxKinds { kinds.removeAll(keepingCapacity: true) }
                kinds[kind] = Kind(lastLogged: now, suppressed: 0)
                return 0
            }
            guard now - entry.lastLogged >= interval else {
                entry.suppressed += 1
                kinds[kind] = entry
                return nil
            }
            let held = entry.suppressed
            kinds[kind] = Kind(lastLogged: now, suppressed: 0)
            return held
        }
    }

    /// Logs `message` as a warning unless this kind was logged less than `interval` ago.
    public func warning(
        _ logger: Logger, _ message: @autoclosure () -> Logger.Message, kind: String,
        metadata: @autoclosure () -> Logger.Metadata = [:]
    ) {
        guard logger.logLevel <= .warning, let suppressed = admit(kind) else { return }
        var metadata = metadata()
        if suppressed > 0 { metadata["suppressed"] = .stringConvertible(suppressed) }
        logger.warning(message(), metadata: metadata)
    }
}
