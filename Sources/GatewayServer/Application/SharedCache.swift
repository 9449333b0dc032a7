import GatewayCore
import ServiceLifecycle

/// The cache replicas share (``GatewayBootstrap/openCache(_:metrics:logger:)``) and what
/// comes with it when it is Redis.
struct SharedCache {
    let cache: any Cache
    /// Where revocations are announced to other replicas (nil in-process).
    let revocationFeed: (any RevocationFeed)?
    /// Its readiness check (nil in-process).
    let check: ReadinessProbe.Check?
    /// Closes its connections after the server drained (nil in-process).
    let close: (any Service)?
}
