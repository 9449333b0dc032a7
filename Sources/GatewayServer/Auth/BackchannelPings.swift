import AsyncHTTPClient
import Foundation
import GatewayCore
import NIOCore
import NIOHTTP1

/// CIBA's ping mode (§10.2): once the user answers, the client's registered notification
/// endpoint receives `{"auth_req_id": …}` with the request's `client_notification_token` as
/// its bearer token; the client then fetches the result at the token endpoint. One attempt
/// within ``timeout``; a failed ping is counted, never retried (the client may still poll).
struct BackchannelPings: Sendable {
    let client: HTTPClient
    let metrics: GatewayMetrics
    var timeout: Duration = .seconds(2)

    /// Pings `endpoint` for `request`; whether the client answered 2xx.
    @discardableResult
    func ping(_ request: BackchannelRequest, endpoint: String) async -> Bool {
        guard let token = request.notificationToken else { return false }
        var call = HTTPClientRequest(url: endpoint)
        call.method = .POST
        call.headers.add(name: "Authorization", value: "Bearer \(token)")
        call.headers.add(name: "Content-Type", value: "application/json")
        let body = (try? JSONValue.object(["auth_req_id": .string(request.id)]).encoded()) ?? Data()
        call.body = .bytes(ByteBuffer(bytes: body))
        let delivered: Bool
        do {
            let response = try await client.execute(call, timeout: .milliseconds(timeout.components.seconds * 1_000))
            _ = try? await response.body.collect(upTo: 4_096)
            delivered = (200..<300).contains(response.status.code)
        } catch {
            delivered = false
        }
        metrics.recordBackchannel(
            tenant: request.tenantID, client: request.clientID, event: delivered ? "pinged" : "ping_failed")
        return delivered
    }
}
