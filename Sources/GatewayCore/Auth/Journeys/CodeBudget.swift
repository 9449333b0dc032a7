import Foundation

/// The bounds on sending codes (issue 63 §5): per identifier per hour, per client address per
/// hour and per tenant per day, counted in the shared cache in fixed windows, so every replica
/// spends the same budget. Every request counts, sent or refused: asking again does not help.
public struct CodeBudget: Sendable {
    /// The bounds (a tenant's journey settings may lower them).
    public struct Limits: Sendable, Equatable {
        public var perIdentifierPerHour = 5
        public var perAddressPerHour = 30
        public var perTenantPerDay = 20_000

        public init() {}
    }

    /// Which bound refused a code.
    public enum Bound: String, Sendable {
        case identifier, address, tenant
    }

    /// Whether a code may be sent now.
    public enum Decision: Sendable, Equatable {
        case allowed
        /// Over `bound` until its window ends, `retryAfter` from now.
        case refused(Bound, retryAfter: Duration)
    }

    private let cache: any Cache
    private let sealer: SecretSealer
    private let clock: WallClock
    public let limits: Limits

    public init(cache: any Cache, sealer: SecretSealer, clock: WallClock, limits: Limits = Limits()) {
        self.cache = cache
        self.sealer = sealer
        self.clock = clock
        self.limits = limits
    }

    /// Spends one code of each budget that applies (`address` nil: none known), tenant first.
    public func spend(tenantID: String, identifier: String, address: String?) async throws -> Decision {
        var checks: [(Bound, String, Int, Int64)] = [(.tenant, "otb:\(tenantID):tenant", limits.perTenantPerDay, 86_400)]
        if let address {
            let name = sealer.fingerprint(address, context: "otb:\(tenantID):address")
            checks.append((.address, "otb:\(tenantID):address:\(name)", limits.perAddressPerHour, 3_600))
        }
        let name = sealer.fingerprint(identifier, context: "otb:\(tenantID):identifier")
        checks.append((.identifier, "otb:\(tenantID):id:\(name)", limits.perIdentifierPerHour, 3_600))
        let windows = FixedWindow(cache: cache, clock: clock)
        for (bound, key, limit, window) in checks {
            if let retryAfter = try await windows.spend(key, limit: limit, window: window) {
                return .refused(bound, retryAfter: retryAfter)
            }
        }
        return .allowed
    }
}
