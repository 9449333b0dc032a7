import AsyncHTTPClient

/// Everything a tenant's external identities need, built once per process: discovery and
/// key sets of external issuers, sign-in through upstream providers, trusted issuers'
/// tokens on the API, and the links from upstream identities to local users.
public struct Federation: Sendable {
    public let issuers: UpstreamIssuers
    public let validator: ExternalJWTValidator
    public let linker: IdentityLinker
    public let signIn: FederatedSignIn
    public let trusted: TrustedTokenVerifier
    /// The API's bearer-token check: the tenant's own tokens, then trusted issuers' tokens.
    public let apiTokens: APITokenVerifier

    /// - Parameters:
    ///   - store: the auth store (users, identity providers, trusted issuers, links).
    ///   - client: the upstream HTTP client.
    ///   - guards: the per-tenant upstream guards (one breaker per tenant and issuer host).
    ///   - budget: time for one call to an issuer, retries included.
    public init(
        store: any AuthStore, client: HTTPClient, cache: any Cache, guards: UpstreamGuards, auth: AuthorizationServer,
        budget: Duration = .seconds(5)
    ) {
        issuers = UpstreamIssuers(client: client, cache: cache, guards: guards, budget: budget)
        validator = ExternalJWTValidator(issuers: issuers, now: auth.clock.now)
        linker = IdentityLinker(users: store, links: store)
        signIn = FederatedSignIn(store: store, issuers: issuers, validator: validator, linker: linker, cache: cache)
        trusted = TrustedTokenVerifier(
            store: store, issuers: issuers, validator: validator, linker: linker, revoked: auth.revocations,
            cache: cache, clock: auth.clock)
        apiTokens = APITokenVerifier(local: auth.verifier, trusted: trusted)
    }
}
