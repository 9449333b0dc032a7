/// Tells a ``TenantDirectory`` that tenants changed sooner than its poll would notice
/// (PostgreSQL `LISTEN/NOTIFY`). The poll stays: it covers a signal lost while reconnecting.
public protocol TenantChangeSignal: Sendable {
    /// Calls `changed` whenever a change is announced (and once after each (re)connect),
    /// until the task is cancelled; then returns.
    func follow(_ changed: @escaping @Sendable () -> Void) async
}
