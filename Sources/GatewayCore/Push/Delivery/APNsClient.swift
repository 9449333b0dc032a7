import AsyncHTTPClient
import Foundation

/// Apple Push Notification service, the HTTP/2 provider API with token-based authentication:
/// `POST {base}/3/device/{token}` with `authorization: bearer <JWT>`, `apns-topic`,
/// `apns-push-type`, `apns-priority`, `apns-expiration` and `apns-collapse-id`. `410 Unregistered`,
/// `400 BadDeviceToken` and `400 DeviceTokenNotForTopic` remove the device; `403
/// ExpiredProviderToken` renews the JWT once; 429 and 5xx are retried.
public final class APNsClient: PushProviderClient {
    public static let productionURL = "https://api.push.apple.com"
    public static let sandboxURL = "https://api.sandbox.push.apple.com"

    private let http: ProviderHTTP
    private let baseURL: String?
    private let clock: @Sendable () -> Date
    private let tokens: APNsProviderTokens

    /// - Parameters:
    ///   - client: must speak HTTP/2 (AsyncHTTPClient negotiates it over TLS).
    ///   - baseURL: one endpoint for both environments (tests: a fake); nil: Apple's, by the
    ///     device's environment.
    public init(
        client: HTTPClient, baseURL: String? = nil, timeout: Duration = .seconds(10),
        clock: @escaping @Sendable () -> Date
    ) {
        http = ProviderHTTP(client: client, timeout: timeout)
        self.baseURL = baseURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        self.clock = clock
        tokens = APNsProviderTokens(clock: clock)
    }

    public func send(_ delivery: ClaimedDelivery, credentials: PushCredentials) async -> ProviderAnswer {
        guard case .apns(let account) = credentials else { return .rejected(reason: "not_configured") }
        guard delivery.token.utf8.allSatisfy({ ASCIIByte.isHexDigit($0) }) else {
            return .invalidToken(reason: "BadDeviceToken")
        }
        let payload = PushPayload(delivery).fitted { (try? Self.body($0).encoded().count) ?? .max }
        let body: [UInt8]
        do {
            body = try Array(Self.body(payload).encoded())
        } catch {
            return .rejected(reason: "payload")
        }
        let environment = delivery.apnsEnvironment ?? account.environment
        let base = baseURL ?? (environment == .sandbox ? Self.sandboxURL : Self.productionURL)
        var stale: String?
        for _ in 0..<2 {
            let jwt: String
            do {
                jwt = try tokens.token(for: account, replacing: stale)
            } catch {
                return .rejected(reason: "credentials")
            }
            let exchange: ProviderHTTP.Exchange
            do {
                exchange = try await http.post(
                    base + "/3/device/" + delivery.token, headers: Self.headers(payload, topic: account.topic, jwt: jwt),
                    body: body)
            } catch let failure as ProviderHTTP.TransportFailure {
                return .retryable(reason: failure.reason, retryAfter: nil, providerFault: true)
            } catch {
                return .retryable(reason: "cancelled", retryAfter: nil, providerFault: false)
            }
            let reason = exchange.json?["reason"]?.stringValue
            if exchange.status == 403, reason == "ExpiredProviderToken", stale == nil {
                stale = jwt
                continue
            }
            return Self.answer(exchange, reason: reason, now: clock())
        }
        return .rejected(reason: "ExpiredProviderToken")
    }

    static func headers(_ payload: PushPayload, topic: String, jwt: String) -> [(String, String)] {
        [
            ("authorization", "bearer " + jwt), ("apns-topic", topic), ("apns-push-type", "alert"),
            ("apns-priority", payload.priority == .high ? "10" : "5"),
            ("apns-expiration", String(Int(payload.expiresAt.timeIntervalSince1970))),
            ("apns-collapse-id", payload.collapseID), ("content-type", "application/json"),
        ]
    }

    /// `{"aps": {"alert": {title, body}}, "data": {…}, "link": "…"}`.
    static func body(_ payload: PushPayload) -> JSONValue {
        var document: [String: JSONValue] = [
            "aps": .object(["alert": .object(["title": .string(payload.title), "body": .string(payload.body)])])
        ]
        if !payload.data.isEmpty { document["data"] = .object(payload.data) }
        if let link = payload.link { document["link"] = .string(link) }
        return .object(document)
    }

    /// What an answer means (`{"reason": …}` on errors).
    static func answer(_ exchange: ProviderHTTP.Exchange, reason: String?, now: Date) -> ProviderAnswer {
        if exchange.status == 200 { return .accepted }
        let code = reason ?? "status_\(exchange.status)"
        let retryAfter = ProviderHTTP.retryAfter(exchange.headers.first(name: "Retry-After"), now: now)
        switch (exchange.status, code) {
        case (410, _), (400, "BadDeviceToken"), (400, "DeviceTokenNotForTopic"):
            return .invalidToken(reason: code)
        case (429, _):
            return .retryable(reason: code, retryAfter: retryAfter, providerFault: false)
        case (500..<600, _):
            return .retryable(reason: code, retryAfter: retryAfter, providerFault: true)
        default:
            return .rejected(reason: code)
        }
    }
}
