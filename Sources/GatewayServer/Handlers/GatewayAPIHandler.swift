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
}
