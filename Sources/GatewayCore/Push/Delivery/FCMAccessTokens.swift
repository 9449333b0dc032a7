import AsyncHTTPClient
import Crypto
import Foundation
import _CryptoExtras

/// OAuth access tokens for FCM, one per service account, from its `token_uri` with an RFC 7523
/// JWT bearer assertion (RS256, scope `firebase.messaging`), cached until five minutes before
/// they expire. Concurrent callers of one account share one request.
actor FCMAccessTokens {
    /// Why no token came.
    enum Failure: Error, Sendable, Equatable {
        /// The token endpoint refused the credentials (4xx): no use trying again soon.
        case refused(String)
        /// The endpoint could not be reached or failed (5xx): try again later.
        case unavailable(String)
    }

    static let scope = "https://www.googleapis.com/auth/firebase.messaging"
    private struct Token: Sendable {
        let value: String
        let expiresAt: Date
    }

    private let http: ProviderHTTP
    private let clock: @Sendable () -> Date
    private var tokens: [String: Token] = [:]
    private var pending: [String: Task<Token, any Error>] = [:]

    init(http: ProviderHTTP, clock: @escaping @Sendable () -> Date) {
        self.http = http
        self.clock = clock
    }

    /// A live token for `credentials`; `renew` drops the cached one first (the API said 401).
    func token(for credentials: FCMCredentials, renew: Bool = false) async throws -> String {
        let key = credentials.clientEmail + "\u{0}" + credentials.tokenURI + "\u{0}" + (credentials.privateKeyID ?? "")
        if renew { tokens[key] = nil }
        if let cached = tokens[key], cached.expiresAt.timeIntervalSince(clock()) > 300 { return cached.value }
        if let running = pending[key] { return try await running.value.value }
        let task = Task { [http, clock] in try await Self.fetch(credentials, http: http, now: clock()) }
        pending[key] = task
        defer { pending[key] = nil }
        let token = try await task.value
        tokens[key] = token
        return token.value
    }

    private static func fetch(_ credentials: FCMCredentials, http: ProviderHTTP, now: Date) async throws -> Token {
        let issued = Int(now.timeIntervalSince1970)
        var header: [String: JSONValue] = ["alg": "RS256", "typ": "JWT"]
        if let kid = credentials.privateKeyID { header["kid"] = .string(kid) }
        let claims: [String: JSONValue] = [
            "iss": .string(credentials.clientEmail), "scope": .string(scope), "aud": .string(credentials.tokenURI),
            "iat": .number(Double(issued)), "exp": .number(Double(issued + 3600)),
        ]
        let key = try credentials.signingKey()
        let assertion = try JWS.sign(claims: claims, header: header) { input in
            try key.signature(for: SHA256.hash(data: input), padding: .insecurePKCS1v1_5).rawRepresentation
        }
        let form = "grant_type=" + AuthorizationServer.formEncode("urn:ietf:params:oauth:grant-type:jwt-bearer")
            + "&assertion=" + AuthorizationServer.formEncode(assertion)
        let exchange: ProviderHTTP.Exchange
        do {
            exchange = try await http.post(
                credentials.tokenURI, headers: [("Content-Type", "application/x-www-form-urlencoded")],
                body: Array(form.utf8))
        } catch let failure as ProviderHTTP.TransportFailure {
            throw Failure.unavailable("token_endpoint_" + failure.reason)
        }
        guard exchange.status == 200 else {
            let error = exchange.json?["error"]?.stringValue ?? "status_\(exchange.status)"
            throw (400..<500).contains(exchange.status) && exchange.status != 429
                ? Failure.refused("token_endpoint_" + error) : Failure.unavailable("token_endpoint_" + error)
        }
        guard let value = exchange.json?["access_token"]?.stringValue, !value.isEmpty else {
            throw Failure.unavailable("token_endpoint_malformed")
        }
        let lifetime = exchange.json?["expires_in"]?.doubleValue ?? 3600
        return Token(value: value, expiresAt: now.addingTimeInterval(min(max(lifetime, 0), 86_400)))
    }
}
