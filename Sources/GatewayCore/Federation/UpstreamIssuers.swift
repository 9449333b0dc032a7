import AsyncHTTPClient
import Foundation
import Synchronization

/// Discovery documents and key sets of external issuers (upstream identity providers and
/// trusted token issuers), fetched through the tenant's upstream guard (breaker, bulkhead,
/// retries) and kept in the shared ``Cache``, so replicas fetch them once: discovery for an
/// hour, key sets for ten minutes. Parsed key sets also stay in process for a minute, so a
/// token verification needs no round trip. A token naming an unknown `kid` refetches the key
/// set (key rotation) at most once per 30 seconds per key set across replicas.
public final class UpstreamIssuers: Sendable {
    /// How long a discovery document is kept.
    public static let metadataLifetime: Duration = .seconds(3600)
    /// How long a key set is kept.
    public static let keySetLifetime: Duration = .seconds(600)
    /// The least time between two fetches of one key set for unknown key ids.
    public static let refetchInterval: Duration = .seconds(30)
    /// Largest discovery document or key set accepted.
    static let maxBytes = 256 * 1024

    let http: UpstreamHTTP
    let cache: any Cache
    let guards: UpstreamGuards
    let budget: Duration
    private let parsed = Mutex<[String: (until: ContinuousClock.Instant, keys: [String: VerificationKey])]>([:])

    /// - Parameter budget: time for one fetch including retries.
    public init(client: HTTPClient, cache: any Cache, guards: UpstreamGuards, budget: Duration = .seconds(5)) {
        self.http = UpstreamHTTP(client: client)
        self.cache = cache
        self.guards = guards
        self.budget = budget
    }

    /// The guard of one issuer host for one tenant (metrics label `oidc:<host>[:<port>]`).
    func upstreamGuard(tenantID: String, url: String) -> UpstreamGuard {
        let components = URLComponents(string: url)
        let host = (components?.host ?? "unknown") + (components?.port.map { ":\($0)" } ?? "")
        return guards.guardFor(tenantID: tenantID, upstream: "oidc:" + host)
    }

    /// The issuer's discovery document; its `issuer` must equal `issuer` exactly (Discovery §4.3).
    public func metadata(tenantID: String, issuer: String) async throws -> ProviderMetadata {
        let url = ProviderMetadata.discoveryURL(issuer: issuer)
        let key = "oidc:meta:" + Base64URL.sha256(url)
        let cached = try? await cache.get(key)
        let bytes: [UInt8]
        if let cached { bytes = cached } else { bytes = try await fetch(tenantID: tenantID, url: url) }
        let metadata: ProviderMetadata
        do { metadata = try UpstreamHTTP.decode(ProviderMetadata.self, from: bytes) } catch let error as UpstreamError {
            throw FederationError.providerUnavailable(error)
        }
        guard metadata.issuer == issuer else {
            throw FederationError.providerMisconfigured(
                "the discovery document names issuer \(metadata.issuer), not \(issuer)")
        }
        if cached == nil { try? await cache.set(key, bytes, ttl: Self.metadataLifetime) }
        return metadata
    }

    /// The key `kid` of the key set at `jwksURI`; nil when the set (even refetched) has no
    /// usable key of that id.
    public func key(tenantID: String, jwksURI: String, kid: String) async throws -> VerificationKey? {
        if let keys = inProcess(jwksURI), let key = keys[kid] { return key }
        let cacheKey = "oidc:jwks:" + Base64URL.sha256(jwksURI)
        if let cached = try? await cache.get(cacheKey) {
            let keys = remember(jwksURI, Self.keys(cached))
            if let key = keys[kid] { return key }
            // Unknown kid: refetch unless another request (or replica) just did.
            guard (try? await cache.setIfAbsent(cacheKey + ":refetch", [1], ttl: Self.refetchInterval)) ?? true else {
                return nil
            }
        }
        let fetched = try await fetch(tenantID: tenantID, url: jwksURI)
        try? await cache.set(cacheKey, fetched, ttl: Self.keySetLifetime)
        return remember(jwksURI, Self.keys(fetched))[kid]
    }

    /// The usable signing keys of a JWK Set document, by `kid` (keys without one are skipped).
    static func keys(_ bytes: [UInt8]) -> [String: VerificationKey] {
        guard case .object(let document)? = try? JSONValue.decode(Data(bytes)),
            case .array(let list)? = document["keys"]
        else { return [:] }
        var keys: [String: VerificationKey] = [:]
        for case .object(let jwk) in list.prefix(100) {
            guard let kid = jwk["kid"]?.stringValue, let key = JWK.verificationKey(jwk) else { continue }
            keys[kid] = key
        }
        return keys
    }

    private func inProcess(_ uri: String) -> [String: VerificationKey]? {
        parsed.withLock { entries in
            guard let entry = entries[uri], entry.until > .now else { return nil }
            return entry.keys
        }
    }

    @discardableResult
    private func remember(_ uri: String, _ keys: [String: VerificationKey]) -> [String: VerificationKey] {
        parsed.withLock { entries in
            if entries.count > 1_000 { entries.removeAll() }
            entries[uri] = (until: .now + .seconds(60), keys: keys)
        }
        return keys
    }

    /// The UserInfo claims (OpenID Connect Core §5.3) of the holder of `accessToken`, from the
    /// issuer's `userinfo_endpoint`; nil when it advertises none or answers no JSON object (a
    /// signed UserInfo JWT is not read). Never cached: asked once per new identity.
    public func userInfo(tenantID: String, issuer: String, accessToken: String) async throws -> [String: JSONValue]? {
        guard let endpoint = try await metadata(tenantID: tenantID, issuer: issuer).userinfoEndpoint else { return nil }
        let bytes = try await fetch(tenantID: tenantID, url: endpoint, bearer: accessToken)
        return try? JSONValue.decode(Data(bytes)).objectValue
    }

    /// One guarded GET (with `bearer` as its Authorization); any upstream failure is
    /// ``FederationError/providerUnavailable(_:)``.
    private func fetch(tenantID: String, url: String, bearer: String? = nil) async throws -> [UInt8] {
        let deadline = ContinuousClock.now + budget
        var headers = [("Accept", "application/json")]
        if let bearer { headers.append(("Authorization", "Bearer " + bearer)) }
        do {
            return try await upstreamGuard(tenantID: tenantID, url: url).run(deadline: deadline) { [headers] in
                try await http.get(url, headers: headers, maxBytes: Self.maxBytes, deadline: deadline).body
            }
        } catch let error as UpstreamError {
            throw FederationError.providerUnavailable(error)
        }
    }

    /// A guarded form POST to a provider endpoint (token exchange, introspection) as client
    /// `clientID`: `client_secret_basic` with a secret (RFC 6749 §2.3.1, id and secret
    /// form-encoded), else `client_id` in the form. Not retried (not idempotent), but counted
    /// by the breaker. The JSON object of a 2xx, or ``FederationError/providerRefused(_:)`` for a 4xx.
    func post(
        tenantID: String, url: String, form: [(String, String)], clientID: String, secret: SecretValue?
    ) async throws -> [String: JSONValue] {
        var form = form
        var headers: [(String, String)] = [("Accept", "application/json")]
        if let secret {
            let credentials =
                AuthorizationServer.formEncode(clientID) + ":" + AuthorizationServer.formEncode(secret.plaintext)
            headers.append(("Authorization", "Basic " + Data(credentials.utf8).base64EncodedString()))
        } else {
            form.append(("client_id", clientID))
        }
        let deadline = ContinuousClock.now + budget
        let reply: UpstreamHTTP.Reply
        do {
            reply = try await upstreamGuard(tenantID: tenantID, url: url).runOnce {
                try await http.post(url, form: form, headers: headers, maxBytes: Self.maxBytes, deadline: deadline)
            }
        } catch UpstreamError.rejected(let status) {
            throw FederationError.providerRefused(
                "HTTP \(status) from \(URLComponents(string: url)?.host ?? "the provider")")
        } catch let error as UpstreamError {
            throw FederationError.providerUnavailable(error)
        }
        guard case .object(let object)? = try? JSONValue.decode(Data(reply.body)) else {
            throw FederationError.providerUnavailable(.malformed("not a JSON object"))
        }
        return object
    }
}
