import AsyncHTTPClient
import Foundation
import HTTPTypes
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime
import ProvisioningAPI

/// ``ProvisioningClient`` over the client generated from
/// `OpenAPI/upstreams/provisioning.yaml`, on the process's shared HTTP client.
public struct HTTPProvisioningClient: ProvisioningClient {
    private let transport: AsyncHTTPClientTransport

    public init(client: HTTPClient) {
        transport = AsyncHTTPClientTransport(configuration: .init(client: client, timeout: .seconds(30)))
    }

    public func search(
        _ query: ProvisioningQuery, _ target: ProvisioningTarget, deadline: ContinuousClock.Instant
    ) async throws -> [ProvisioningMiniApp] {
        let output = try await call(target, deadline: deadline) { client in
            try await client.searchMiniApps(
                path: .init(superAppId: target.superAppID),
                query: .init(
                    id: query.ids.isEmpty ? nil : query.ids, text: query.text, tag: query.tag,
                    lat: query.location?.latitude, lon: query.location?.longitude, radius: query.location?.radiusMetres,
                    featured: query.featured ? true : nil,
                    filter: query.filters.isEmpty ? nil : query.filters.map(\.wireValue),
                    start: query.start, count: query.count
                ),
                headers: .init(xSuperAppVersion: target.superAppVersion)
            )
        }
        switch output {
        case .ok(let ok):
            return try Self.map(try ok.body.json.items)
        case .default(let status, _):
            throw Self.error(status: status, retryAfter: nil)
        }
    }

    public func miniApp(
        id: String, _ target: ProvisioningTarget, deadline: ContinuousClock.Instant
    ) async throws -> ProvisioningMiniApp {
        let output = try await call(target, deadline: deadline) { client in
            try await client.getMiniApp(
                path: .init(superAppId: target.superAppID, id: id),
                headers: .init(xSuperAppVersion: target.superAppVersion))
        }
        switch output {
        case .ok(let ok):
            return try Self.map([try ok.body.json])[0]
        case .default(let status, _):
            throw Self.error(status: status, retryAfter: nil)
        }
    }

    /// Runs one generated-client call bounded by `deadline`, mapping failures.
    private func call<T: Sendable>(
        _ target: ProvisioningTarget, deadline: ContinuousClock.Instant,
        _ body: @escaping @Sendable (ProvisioningAPI.Client) async throws -> T
    ) async throws -> T {
        guard let url = URL(string: target.baseURL) else { throw UpstreamError.notConfigured }
        let client = ProvisioningAPI.Client(
            serverURL: url, transport: transport, middlewares: [APIKeyMiddleware(apiKey: target.apiKey)])
        do {
            return try await CutOff.run(until: deadline, orThrow: UpstreamError.timeout) { try await body(client) }
        } catch let error as UpstreamError {
            throw error
        } catch let error as ClientError {
            if let upstream = error.underlyingError as? UpstreamError { throw upstream }
            if error.underlyingError is DecodingError { throw UpstreamError.malformed("provisioning body") }
            if let http = error.underlyingError as? HTTPClientError,
                http == .deadlineExceeded || http == .readTimeout || http == .connectTimeout
            {
                throw UpstreamError.timeout
            }
            throw UpstreamError.connection(String(describing: type(of: error.underlyingError)))
        }
    }

    static func error(status: Int, retryAfter: String?) -> UpstreamError {
        switch status {
        case 404: .notFound
        case 429: .rateLimited(retryAfter: retryAfter)
        case 400..<500: .rejected(status: status)
        default: .serverError(status: status)
        }
    }

    static func map(_ items: [Components.Schemas.MiniAppInfo]) throws -> [ProvisioningMiniApp] {
        items.map { item in
            ProvisioningMiniApp(
                id: item.id, name: item.name, description: item.description, icon: item.icon, banner: item.banner,
                card: item.card, metadataURL: item.metadataUrl, entryPoint: item.entryPoint,
                servicesURL: item.servicesUrl,
                signature: item.signature, version: item.version, kind: item._type == .native ? .native : .web
            )
        }
    }
}

/// Adds `X-Api-Key` (the tenant's provisioning key) to every provisioning request.
struct APIKeyMiddleware: ClientMiddleware {
    let apiKey: SecretValue?

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        if let apiKey, let name = HTTPField.Name("X-Api-Key") { request.headerFields[name] = apiKey.plaintext }
        let (response, responseBody) = try await next(request, body, baseURL)
        if response.status.code == 429 {
            throw UpstreamError.rateLimited(retryAfter: response.headerFields[HTTPField.Name("Retry-After")!])
        }
        return (response, responseBody)
    }
}
