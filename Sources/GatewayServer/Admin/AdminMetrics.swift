import GatewayCore

/// Admin API requests by route and status (`gateway_admin_requests_total`): which operations
/// operators use and how often they are refused (403) or unauthenticated (401); and refusals by
/// the roles the caller held and the permission it lacked (`gateway_admin_refusals_total`).
struct AdminMetrics: Sendable {
    let metrics: GatewayMetrics

    /// One request to `route` (the contract's path template; `other` for an undeclared path,
    /// so the label stays bounded).
    func count(route: AdminRoutes.Route?, method: String, status: Int) {
        metrics.increment(
            "gateway_admin_requests_total", "Admin API requests by route, method and status.",
            labels: [("route", route?.template ?? "other"), ("method", method), ("status", String(status))])
    }

    /// A call refused for lacking `missing`, by an operator holding `bindings`.
    func refused(_ missing: AdminPermission, bindings: [RoleBinding]) {
        metrics.increment(
            "gateway_admin_refusals_total", "Admin API calls refused (403) by the roles held and the permission missing.",
            labels: [("roles", Self.roles(bindings)), ("permission", missing.description)])
    }

    /// The distinct roles held, sorted and joined by `+` (at most the 63 sets of six roles).
    static func roles(_ bindings: [RoleBinding]) -> String {
        let names = Set(bindings.map(\.role.rawValue)).sorted()
        return names.isEmpty ? "none" : names.joined(separator: "+")
    }
}
