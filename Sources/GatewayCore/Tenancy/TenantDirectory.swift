import Logging
import Synchronization

/// The server's in-memory snapshot of all tenants: the per-request lookup never does I/O.
///
/// ``run()`` polls the store's ``TenantStore/changeToken()`` and reloads when it moves,
/// so a change written by gatewayctl (another process) shows up within one poll interval
/// plus a reload.
public final class TenantDirectory: Sendable {
    private struct Snapshot {
        var tenants: [String: Tenant] = [:]
        var token: Int64?
    }

    private let store: any TenantStore
    private let pollInterval: Duration
    private let logger: Logger
    private let snapshot = Mutex(Snapshot())

    /// A directory over `store`; empty until ``reload()`` or ``run()``.
    public init(store: any TenantStore, pollInterval: Duration = .milliseconds(500), logger: Logger) {
        self.store = store
        self.pollInterval = pollInterval
        self.logger = logger
    }

    /// The tenant with `id`, from memory (suspended tenants included; callers check status).
    public func tenant(_ id: String) -> Tenant? {
        snapshot.withLock { $0.tenants[id] }
    }

    /// All tenants, sorted by id.
    public var tenants: [Tenant] {
        snapshot.withLock { Array($0.tenants.values) }.sorted { $0.id < $1.id }
    }

    /// The change token of the current snapshot (nil before the first load).
    public var loadedChangeToken: Int64? {
        snapshot.withLock { $0.token }
    }

    /// Reads every tenant from the store and swaps the snapshot in one step.
    public func reload() async throws {
        // Token first: a write landing between the two reads moves the token again,
        // so the next poll reloads; a snapshot is never newer-looking than its data.
        let token = try await store.changeToken()
        let all = try await store.allTenants()
        let byID = Dictionary(all.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
        let previous = snapshot.withLock { state -> Int in
            let count = state.tenants.count
            // A concurrent reload that read a newer token wins.
            if let current = state.token, current > token { return count }
            state = Snapshot(tenants: byID, token: token)
            return count
        }
        logger.debug("tenant directory reloaded", metadata: [
            "tenants": "\(byID.count)", "previous": "\(previous)", "changeToken": "\(token)",
        ])
    }

    /// Polls for changes every `pollInterval` until the task is cancelled, then returns.
    /// Transient store errors are logged and retried on the next tick, never thrown.
    public func run() async throws {
        while !Task.isCancelled {
            do {
                let token = try await store.changeToken()
                if token != loadedChangeToken { try await reload() }
            } catch is CancellationError {
                return
            } catch {
                logger.warning("tenant directory refresh failed; keeping the previous snapshot", metadata: [
                    "error": "\(error)",
                ])
            }
            do {
                try await Task.sleep(for: pollInterval)
            } catch {
                return
            }
        }
    }
}
