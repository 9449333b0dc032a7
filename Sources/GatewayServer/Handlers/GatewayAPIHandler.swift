import GatewayAPI
import GatewayCore

/// Implements the operations of `OpenAPI/gateway.yaml` (the generated `APIProtocol`).
/// Each operation lives in its own extension file beside this one; all of them reach the
/// gateway's services through the one ``GatewayServices`` value the bootstrap built.
struct GatewayAPIHandler: APIProtocol {
    let services: GatewayServices
}
