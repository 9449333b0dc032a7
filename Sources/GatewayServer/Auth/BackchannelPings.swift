import AsyncHTTPClient
import Foundation
import GatewayCore
import NIOCore
import NIOHTTP1

/// CIBA's ping mode (§10.2): once the user answers, the client's registered notification
/// endpoint receives `{"auth_req_id": …}` with the request's `client_notification_token` as
/// its bearer token; the client then fetches the result at the token endpoint.
///
/// The endpoint is a URL a client registered, so the call is held like any upstream call: its
/// host is resolved once and a special-purpose address (private, loopback, link-local, …) is
/// refused unless the tenant allows it (``CIBASettings/allowPrivateNotificationEndpoints``);
/// the connection then goes to exactly the checked address (``PinnedTarget``), through the
/// client's circuit breaker and bulkhead (upstream `ciba-ping:<client>`), no redirects, one
/// attempt within ``timeout``. A failed ping is counted, never retried (the client may still poll).
struct BackchannelPings: Sendable {
    let guards: UpstreamGuards
    let metrics: GatewayMetrics
    var timeout: Duration = .seconds(2)
    var resolver: @Sendable (String, Int) throws -> IPAddress? = PinnedTarget.systemResolve

    /// How one ping ended.
    enum Outcome: Equatable {
        /// The client answered 2xx.
        case delivered
        /// No 2xx: an error status, a connection failure, a timeout or an open breaker.
        case failed(String)
        /// Never sent: the endpoint's address is not one the tenant lets pings reach.
        case refused(PinnedTarget.Refusal)
    }

    /// Pings `endpoint` for `request` under the tenant's `settings`, and counts the outcome
    /// (`pinged`, `ping_failed`, `ping_refused`).
    @discardableResult
    func ping(_ request: BackchannelRequest, endpoint: String, settings: CIBASettings) async -> Outcome {
        let outcome = await send(request, endpoint: endpoint, settings: settings)
        let event =
            switch outcome {
            case .delivered: "pinged"
            case .failed: "ping_failed"
            case .refused: "ping_refused"
            }
        metrics.recordBackchannel(tenant: request.tenantID, client: request.clientID, event: event)
        return outcome
    }

    private func send(_ request: BackchannelRequest, endpoint: String, settings: CIBASettings) async -> Outcome {
        guard let token = request.notificationToken else { return .failed("no client_notification_token") }
        let target: PinnedTarget
        do {
            target = try await PinnedTarget.resolve(
                endpoint, allowSpecialPurpose: settings.allowPrivateNotificationEndpoints, resolver: resolver)
        } catch {
            return .refused(error)
        }
        var call = HTTPClientRequest(url: endpoint)
        call.method = .POST
        call.headers.add(name: "Authorization", value: "Bearer \(token)")
        call.headers.add(name: "Content-Type", value: "application/json")
        let body = (try? JSONValue.object(["auth_req_id": .string(request.id)]).encoded()) ?? Data()
        call.body = .bytes(ByteBuffer(bytes: body))
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration(pinnedTo: target))
        let outcome = await send(call, through: client, for: request)
        try? await client.shutdown()
        return outcome
    }

    private func send(
        _ call: HTTPClientRequest, through client: HTTPClient, for request: BackchannelRequest
    ) async -> Outcome {
        let upstream = guards.guardFor(tenantID: request.tenantID, upstream: "ciba-ping:" + request.clientID)
        do {
            let status = try await upstream.runOnce {
                let response: HTTPClientResponse
                do {
                    response = try await client.execute(call, timeout: .init(timeout))
                    _ = try await response.body.collect(upTo: 4_096)
                } catch {
                    throw UpstreamError.connection("\(error)")
                }
                guard response.status.code < 500 else {
                    throw UpstreamError.serverError(status: Int(response.status.code))
                }
                return response.status.code
            }
            return (200..<300).contains(status) ? .delivered : .failed("status \(status)")
        } catch {
            return .failed("\(error)")
        }
    }

    /// A client of its own per ping, connecting to the checked address only: pings are one
    /// per answered request, so a pool would gain nothing, and a shared pool would keep
    /// connections to where a name resolved before.
    private func configuration(pinnedTo target: PinnedTarget) -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration()
        configuration.dnsOverride = target.hostOverride
        configuration.redirectConfiguration = .disallow
        configuration.decompression = .disabled
        configuration.timeout = .init(connect: .init(timeout), read: .init(timeout))
        return configuration
    }
}
