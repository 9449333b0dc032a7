import Logging
import Synchronization

/// The server's in-memory snapshot of all tenants: the per-request lookup never does I/O.
///
/// ``run()`` asks the store which tenants changed since the snapshot's change token
/// (``TenantStore/changedTenants(after:)``) every poll interval, and at once when a
/// ``TenantChangeSignal`` announces a change, and reads only those again: a change written by
/// gatewayctl (another process) shows up within one poll interval (or one notification)
/// plus a read of the changed tenants, whatever the number of tenants. When the store no
/// longer remembers that far back, everything is read again.
public final class TenantDirectory: Sendable {
    private struct Snapshot {
        var tenants: [String: Tenant] = [:]
        var token: Int64?
    }

    private let store: any TenantStore
    private let signal: (any TenantChangeSignal)?
    private let pollInterval: Duration
    private let refreshBudget: Duration
    private let logger: Logger
    private let followers: [any TenantStateFollower]
    private let snapshot = Mutex(Snapshot())

    /// A directory over `store`; empty until ``reload()`` or ``run()``.
    /// - Parameter followers: per-tenant state read again whenever tenants are.
    /// - Parameter refreshBudget: the database time one incremental refresh may take (its
    ///   ``DatabaseBudget``); past it the next tick tries again, on another connection. Found
    ///   by `make chaos`: a refresh sent on a connection that a partition had cut waited the
    ///   whole statement deadline (10 s), and after healing for the server's retransmission,
    ///   so a healed replica served an old tenant config for 1.3-2.3 s more.
    public init(
        store: any TenantStore, signal: (any TenantChangeSignal)? = nil, pollInterval: Duration = .milliseconds(500),
        refreshBudget: Duration = .seconds(1), followers: [any TenantStateFollower] = [], logger: Logger
    ) {
        self.followers = followers
        self.store = store
        self.signal = signal
        self.pollInterval = pollInterval
        self.refreshBudget = refreshBudget
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
        for follower in followers { try await follower.reload(tenantIDs: nil) }
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

    /// Reads the tenants changed since the snapshot's token and applies them (everything,
    /// when there is no snapshot yet or the store cannot say what changed).
    /// - Returns: how many tenants were read (for logs and tests).
    @discardableResult
    public func refresh() async throws -> Int {
        guard let loaded = loadedChangeToken else {
            try await reload()
            return snapshot.withLock { $0.tenants.count }
        }
        guard let changes = try await budgeted({ try await store.changedTenants(after: loaded) }) else {
            try await reload()  // unbudgeted: a full load of many tenants takes seconds
            return snapshot.withLock { $0.tenants.count }
        }
        let read = try await budgeted {
            var read: [String: Tenant?] = [:]
            for id in changes.tenantIDs { read[id] = try await store.tenant(id: id) }
            if !changes.tenantIDs.isEmpty {
                for follower in followers { try await follower.reload(tenantIDs: changes.tenantIDs) }
            }
            return read
        }
        snapshot.withLock { state in
            // A concurrent refresh or reload that got further wins.
            if let current = state.token, current >= changes.token { return }
            for (id, tenant) in read { state.tenants[id] = tenant }
            state.token = changes.token
        }
        if !read.isEmpty {
            logger.debug(
                "tenant directory refreshed", metadata: ["changed": "\(read.count)", "changeToken": "\(changes.token)"])
        }
        return read.count
    }

    /// Runs `work` within ``refreshBudget`` (or the caller's budget, if sooner).
    private func budgeted<T: Sendable>(_ work: @Sendable () async throws -> T) async throws -> T {
        let mine = ContinuousClock.now + refreshBudget
        return try await DatabaseBudget.$deadline.withValue(DatabaseBudget.deadline.map { min($0, mine) } ?? mine) {
            try await DatabaseBudget.$outsideThePool.withValue(true) { try await work() }
        }
    }

    /// Refreshes every `pollInterval`, and at once when the change signal fires, until the
    /// task is cancelled; then returns. Transient store errors are logged and retried on the
    /// next tick, never thrown.
    public func run() async throws {
        // Ticks and signals coalesce: a burst of notifications costs one refresh.
        let (wakes, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [pollInterval] in
                while (try? await Task.sleep(for: pollInterval)) != nil { wake.yield() }
                wake.finish()
            }
            if let signal {
                group.addTask { await signal.follow { wake.yield() } }
            }
            for await _ in wakes {
                do {
                    try await refresh()
                } catch is CancellationError {
                    break
                } catch {
                    logger.warning("tenant directory refresh failed; keeping the previous snapshot", metadata: [
                        "error": "\(error)",
                    ])
                }
            }
            group.cancelAll()
        }
    }
}
