import Synchronization

/// This process's copy of every revoked token id, so checking a token on each API call
/// needs no network round trip.
///
/// The copy is only trusted while it is complete: a ``RevocationFeed`` marks it synced
/// after subscribing to new revocations and then loading all current ones, and unsynced
/// when the subscription breaks. While unsynced, ``lookup(_:now:)`` answers nil and the
/// caller asks the shared store.
public final class RevocationMirror: Sendable {
    private struct State {
        var synced = false
        /// Key → revoked until (ms since 1970).
        var entries: [String: Int64] = [:]
        var addsSincePrune = 0
    }

    private let state = Mutex(State())

    public init() {}

    /// true/false while synced; nil when the copy may be incomplete.
    public func lookup(_ key: String, now: Int64) -> Bool? {
        state.withLock { state in
            guard state.synced else { return nil }
            guard let until = state.entries[key] else { return false }
            return now < until
        }
    }

    /// Adds one revocation (from this process or the feed).
    public func add(_ key: String, until: Int64, now: Int64) {
        state.withLock { state in
            state.entries[key] = max(until, state.entries[key] ?? 0)
            state.addsSincePrune += 1
            if state.addsSincePrune >= 1_024 {
                state.entries = state.entries.filter { $0.value > now }
                state.addsSincePrune = 0
            }
        }
    }

    /// Merges a full load of current revocations and marks the copy complete. Entries
    /// added since the subscription started are kept (the load may predate them).
    public func synced(with entries: [String: Int64], now: Int64) {
        state.withLock { state in
            state.entries.merge(entries) { max($0, $1) }
            state.entries = state.entries.filter { $0.value > now }
            state.addsSincePrune = 0
            state.synced = true
        }
    }

    /// The feed broke: revocations may be missed until the next ``synced(with:now:)``.
    public func unsynced() {
        state.withLock { $0.synced = false }
    }

    /// Whether lookups are answered from memory.
    public var isSynced: Bool { state.withLock { $0.synced } }
}
