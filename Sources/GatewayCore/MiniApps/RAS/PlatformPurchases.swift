import AsyncHTTPClient
import Foundation

/// The platform's in-app purchase calls (the Android SDK's `purchase-items` and
/// `transaction`), passed through for the RAS-compatible API and never cached: the gateway
/// only puts the tenant's real key on them and bounds them with the tenant's platform breaker
/// and the request budget (reads retried like every platform read, a transaction POST never).
/// Bodies go both ways as JSON bytes; a platform without these endpoints answers 404.
public struct PlatformPurchases: Sendable {
    static let maxBytes = 256 * 1024
    let http: UpstreamHTTP
    let guards: UpstreamGuards

    public init(client: HTTPClient, guards: UpstreamGuards) {
        self.http = UpstreamHTTP(client: client)
        self.guards = guards
    }

    /// `GET /host/{P}/miniapp/{id}/purchase-items`.
    public func items(tenant: Tenant, miniAppID: String, deadline: ContinuousClock.Instant) async throws -> [UInt8] {
        try await call(tenant, idempotent: true, deadline: deadline) { target in
            try await http.get(
                try Self.url(target, miniAppID, "purchase-items"), headers: Self.headers(target),
                maxBytes: Self.maxBytes, deadline: deadline
            ).body
        }
    }

    /// `POST /host/{P}/miniapp/{id}/transaction` with the SDK's JSON body.
    public func recordTransaction(
        tenant: Tenant, miniAppID: String, body: [UInt8], deadline: ContinuousClock.Instant
    ) async throws -> [UInt8] {
        try await call(tenant, idempotent: false, deadline: deadline) { target in
            try await http.postJSON(
                try Self.url(target, miniAppID, "transaction"), body: body, headers: Self.headers(target),
                maxBytes: Self.maxBytes, deadline: deadline
            ).body
        }
    }

    /// `GET /host/{P}/miniapp/{id}/transaction/{token}`.
    public func transaction(
        tenant: Tenant, miniAppID: String, token: String, deadline: ContinuousClock.Instant
    ) async throws -> [UInt8] {
        try await call(tenant, idempotent: true, deadline: deadline) { target in
            let url = try Self.url(target, miniAppID, "transaction") + "/" + (try UpstreamPathSegment.encode(token))
            return try await http.get(url, headers: Self.headers(target), maxBytes: Self.maxBytes, deadline: deadline)
                .body
        }
    }

    private func call(
        _ tenant: Tenant, idempotent: Bool, deadline: ContinuousClock.Instant,
        _ attempt: @Sendable (PlatformTarget) async throws -> [UInt8]
    ) async throws -> [UInt8] {
        do {
            let target = try PlatformTarget(tenant: tenant)
            let guarded = guards.guardFor(tenantID: tenant.id, upstream: "platform")
            if idempotent {
                return try await guarded.run(deadline: deadline) { try await attempt(target) }
            }
            return try await guarded.runOnce { try await attempt(target) }
        } catch UpstreamError.notFound {
            throw MiniAppError.miniAppNotFound
        } catch let error as UpstreamError {
            throw MiniAppError.upstream(error, .platform)
        }
    }

    private static func url(_ target: PlatformTarget, _ miniAppID: String, _ leaf: String) throws -> String {
        target.baseURL
            + "/host/\(try UpstreamPathSegment.encode(target.projectID))/miniapp/\(try UpstreamPathSegment.encode(miniAppID))/\(leaf)"
    }

    private static func headers(_ target: PlatformTarget) -> [(String, String)] {
        [("apiKey", target.apiKeyHeader), ("Accept", "application/json")]
    }
}
