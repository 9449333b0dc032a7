/// Admin API requests by route and status (`gateway_admin_requests_total`): which operations
/// operators use and how often they are refused (403) or unauthenticated (401).
struct AdminMetrics: Sendable {
    let metrics: GatewayMetrics

    func count(path: String, method: String, status: Int) {
        metrics.increment(
            "gateway_admin_requests_total", "Admin API requests by route, method and status.",
            labels: [("route", Self.route(path)), ("method", method), ("status", String(status))])
    }

    /// The route without ids, so the label stays bounded.
    static func route(_ path: String) -> String {
        let parts = path.split(separator: "/")
        switch parts.count {
        case 3 where parts[1] == "oauth2": return "/admin/oauth2/\(parts[2])"
        case 3: return "/admin/v1/\(parts[2])"
        case 4 where parts[2] == "tenants": return "/admin/v1/tenants/{tenant}"
        default: return "other"
        }
    }
}
