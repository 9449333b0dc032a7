import GatewayAPI
import GatewayCore

/// Implements the operations of `OpenAPI/gateway.yaml` (the generated `APIProtocol`).
/// Each operation lives in its own extension file beside this one.
struct GatewayAPIHandler: APIProtocol {
    let directory: TenantDirectory
    let metrics: GatewayMetrics
    let readiness: ReadinessProbe
    let auth: AuthorizationServer
    let issuerBase: IssuerBase
    let csrf: CSRFTokens
    /// Mini-app operations (platform fan-out through the answer cache).
    let miniApps: MiniAppService?
    /// Time budget of one request for its upstream calls.
    let upstreamBudget: Duration
    /// Deadline of each `/home` part (inside the request budget).
    let homePartBudget: Duration
    /// Consents and mini-app access tokens.
    let userState: UserStateServices?
    /// Server nonces for the DPoP proofs of clients that require them.
    let dpopNonces: DPoPNonces
}
