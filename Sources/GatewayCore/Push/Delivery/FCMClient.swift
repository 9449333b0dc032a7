import AsyncHTTPClient
import Foundation

/// Firebase Cloud Messaging, HTTP v1: `POST {base}/v1/projects/{project}/messages:send` with
/// the service account's access token. `UNREGISTERED` (and `SENDER_ID_MISMATCH`: the token
/// belongs to another project) remove the device; `QUOTA_EXCEEDED` (429), `UNAVAILABLE` (503)
/// and `INTERNAL` (500) are retried, honouring `Retry-After`; a 401 renews the access token once.
public final class FCMClient: PushProviderClient {
    /// Google's endpoint.
    public static let defaultBaseURL = "https://fcm.googleapis.com"

    private let http: ProviderHTTP
    private let baseURL: String
    private let clock: @Sendable () -> Date
    private let tokens: FCMAccessTokens

    /// - Parameter baseURL: where the API is (tests: a fake on loopback).
    public init(
        client: HTTPClient, baseURL: String = FCMClient.defaultBaseURL, timeout: Duration = .seconds(10),
        clock: @escaping @Sendable () -> Date
    ) {
        http = ProviderHTTP(client: client, timeout: timeout)
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.clock = clock
        tokens = FCMAccessTokens(http: http, clock: clock)
    }

    public func send(_ delivery: ClaimedDelivery, credentials: PushCredentials) async -> ProviderAnswer {
        guard case .fcm(let account) = credentials else { return .rejected(reason: "not_configured") }
        let body: [UInt8]
        do {
            body = try Array(Self.message(delivery, now: clock()).encoded())
        } catch {
            return .rejected(reason: "payload")
        }
        let url = baseURL + "/v1/projects/" + account.projectID + "/messages:send"
        for renew in [false, true] {
            let token: String
            do {
                token = try await tokens.token(for: account, renew: renew)
            } catch FCMAccessTokens.Failure.refused(let reason) {
                return .rejected(reason: reason)
            } catch FCMAccessTokens.Failure.unavailable(let reason) {
                return .retryable(reason: reason, retryAfter: nil, providerFault: true)
            } catch {
                return .rejected(reason: "credentials")
            }
            let exchange: ProviderHTTP.Exchange
            do {
                exchange = try await http.post(
                    url, headers: [("Authorization", "Bearer " + token), ("Content-Type", "application/json")],
                    body: body)
            } catch let failure as ProviderHTTP.TransportFailure {
                return .retryable(reason: failure.reason, retryAfter: nil, providerFault: true)
            } catch {
                return .retryable(reason: "cancelled", retryAfter: nil, providerFault: false)
            }
            if exchange.status == 401, !renew { continue }
            return Self.answer(exchange, now: clock())
        }
        return .rejected(reason: "UNAUTHENTICATED")
    }

    /// The `messages:send` body: token, notification, data (strings), Android and APNs options;
    /// the body cut to fit FCM's 4,096 bytes (``PushPayload/fitted(within:size:)``).
    static func message(_ delivery: ClaimedDelivery, now: Date) -> JSONValue {
        let payload = PushPayload(delivery).fitted { candidate in
            (try? message(candidate, token: delivery.token, now: now).encoded().count) ?? .max
        }
        return message(payload, token: delivery.token, now: now)
    }

    private static func message(_ payload: PushPayload, token: String, now: Date) -> JSONValue {
        let ttl = max(0, Int(payload.expiresAt.timeIntervalSince(now).rounded(.down)))
        let headers: [String: JSONValue] = [
            "apns-priority": payload.priority == .high ? "10" : "5",
            "apns-expiration": .string(String(Int(payload.expiresAt.timeIntervalSince1970))),
            "apns-collapse-id": .string(payload.collapseID),
        ]
        var message: [String: JSONValue] = [
            "token": .string(token),
            "notification": .object(["title": .string(payload.title), "body": .string(payload.body)]),
            "android": .object([
                "priority": payload.priority == .high ? "HIGH" : "NORMAL", "ttl": .string("\(ttl)s"),
                "collapse_key": .string(payload.collapseID),
            ]),
            "apns": .object(["headers": .object(headers)]),
        ]
        let data = payload.stringData
        if !data.isEmpty { message["data"] = .object(data.mapValues { .string($0) }) }
        return .object(["message": .object(message)])
    }

    /// What an answer of the API means (Google's error model: `error.status` and
    /// `error.details[].errorCode`).
    static func answer(_ exchange: ProviderHTTP.Exchange, now: Date) -> ProviderAnswer {
        if (200..<300).contains(exchange.status) { return .accepted }
        let error = exchange.json?["error"]
        var reason = error?.objectValue?["status"]?.stringValue ?? "status_\(exchange.status)"
        for detail in error?.objectValue?["details"]?.arrayValue ?? [] {
            if let errorCode = detail.objectValue?["errorCode"]?.stringValue { reason = errorCode }
        }
        let retryAfter = ProviderHTTP.retryAfter(exchange.headers.first(name: "Retry-After"), now: now)
        switch (exchange.status, reason) {
        case (_, "UNREGISTERED"), (_, "SENDER_ID_MISMATCH"), (404, _):
            return .invalidToken(reason: reason)
        case (429, _), (_, "QUOTA_EXCEEDED"):
            return .retryable(reason: reason, retryAfter: retryAfter, providerFault: false)
        case (500..<600, _), (_, "UNAVAILABLE"), (_, "INTERNAL"):
            return .retryable(reason: reason, retryAfter: retryAfter, providerFault: true)
        default:
            return .rejected(reason: reason)
        }
    }
}
