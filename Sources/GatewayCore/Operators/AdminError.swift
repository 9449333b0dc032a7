/// What the admin API refuses (issue 48), mapped to problem documents in one place
/// (GatewayServer's admin problem mapping).
public enum AdminError: Error, Sendable, Equatable {
    /// No operator token, an unknown or expired one, or a disabled operator: 401.
    case unauthorized
    /// The bindings in scope do not allow it: 403 `forbidden`, naming the permission.
    case forbidden(missing: AdminPermission)
    /// No such tenant, or one where the operator holds nothing: 404 `tenant_not_found`.
    case tenantNotFound(String)
    /// A tenant with that id exists: 409 `tenant_exists`.
    case tenantExists(String)
    /// `If-Match` names a revision that is no longer current: 412 with the current one.
    case preconditionFailed(current: Int64)
    /// A query parameter the contract allows but the rules refuse: 400 `invalid_request`.
    case badRequest(String)
    /// A value the tenant rules refuse: 422 `invalid_tenant`.
    case invalidTenant(String)
    /// No OAuth client of that id in the tenant: 404 `client_not_found`.
    case clientNotFound(String)
    /// The tenant has a client of that id: 409 `client_exists`.
    case clientExists(String)
    /// Client settings the registration rules refuse: 422 `invalid_client_metadata` (RFC 7591's name).
    case invalidClientMetadata(String)
    /// The mini app has no release policy: 404 `release_not_found`.
    case releaseNotFound(miniAppID: String)
    /// A policy the release rules refuse (a share over 100 %, a withdrawn version): 422
    /// `invalid_release`.
    case invalidRelease(String)
    /// The action does not fit the policy's state (pausing a paused candidate): 409
    /// `release_state_conflict`.
    case releaseStateConflict(String)
    /// The `Idempotency-Key` was used for a different request: 422 `idempotency_key_reused`.
    case idempotencyKeyReused
    /// The request with this `Idempotency-Key` is still being acted on: 409
    /// `idempotency_in_progress`.
    case idempotencyInProgress
    /// No user of that username in the tenant: 404 `user_not_found`.
    case userNotFound(String)
    /// The user holds no passkey with that ID: 404 `passkey_not_found`.
    case passkeyNotFound(String)
    /// The tenant has a user of that username: 409 `user_exists`.
    case userExists(String)
    /// A username or password the rules refuse: 422 `invalid_user`.
    case invalidUser(String)
    /// The tenant has no credentials for that push provider: 404 `push_credentials_not_found`.
    case pushCredentialsNotFound(String)
    /// Credentials the provider's rules refuse (a key that is not one): 422 `invalid_push_credentials`.
    case invalidPushCredentials(String)
    /// The tenant serves no link domain of that host: 404 `link_domain_not_found`.
    case linkDomainNotFound(String)
    /// Another tenant serves the host (which one is not said): 409 `link_domain_taken`.
    case linkDomainTaken(String)
    /// A host or app id the rules refuse: 422 `invalid_link_domain`.
    case invalidLinkDomain(String)
    /// The tenant does not trust that issuer: 404 `trusted_issuer_not_found`.
    case trustedIssuerNotFound(String)
    /// A trust the rules refuse (an http issuer off loopback, a cache time over an hour): 422
    /// `invalid_trusted_issuer`.
    case invalidTrustedIssuer(String)
    /// The tenant has no identity provider of that alias: 404 `identity_provider_not_found`.
    case identityProviderNotFound(String)
    /// The tenant has an identity provider of that alias: 409 `identity_provider_exists`.
    case identityProviderExists(String)
    /// A provider the rules refuse (an alias, an issuer, a second auto-redirect): 422
    /// `invalid_identity_provider`.
    case invalidIdentityProvider(String)
    /// A locale, key or text the localization rules refuse: 422 `invalid_localization`.
    case invalidLocalization(String)
    /// A notification the sending rules refuse: 422 `invalid_notification`.
    case invalidNotification(String)
    /// No notification of that id in the tenant: 404 `notification_not_found`.
    case notificationNotFound(String)
    /// No admin job of that id in the tenant.
    case jobNotFound(String)
    /// The replica runs as many imports as it may; try again shortly.
    case importBusy
    /// The tenant publishes no signing key of that id: 404 `signing_key_not_found`.
    case signingKeyNotFound(String)
    /// The key change would leave an algorithm without a signer: 409 `signing_key_conflict`.
    case signingKeyConflict(String)
    /// A role binding that cannot be (an unknown role, a tenant that does not exist, a
    /// platform-only role in a tenant): 422 `invalid_binding`.
    case invalidBinding(String)
    /// A new operator that cannot be (its name, its kind): 422 `invalid_operator`.
    case invalidOperator(String)
    /// No operator of that name the caller may see: 404 `operator_not_found`.
    case operatorNotFound(String)
    /// An operator of that name exists: 409 `operator_exists`.
    case operatorExists(String)
    /// The operator holds no such binding: 404 `binding_not_found`.
    case bindingNotFound(String)
    /// No audit record of that id: 404 `audit_record_not_found`.
    case auditRecordNotFound(Int64)
}

/// One admin API call: the session and where it came from, for decisions and the trail.
public struct AdminCall: Sendable {
    public var session: OperatorSession
    public var requestID: String
    public var address: String?
    public var userAgent: String?

    public init(session: OperatorSession, requestID: String, address: String?, userAgent: String?) {
        self.session = session
        self.requestID = requestID
        self.address = address
        self.userAgent = userAgent
    }

    /// The actor the audit trail records: the operator, its bindings now, how it authenticated.
    public var actor: AuditActor {
        AuditActor(
            subject: session.caller.id, name: session.caller.name, roles: session.bindings.map(\.label),
            auth: AuditAuthentication(method: session.method, clientID: session.clientID, tokenID: session.tokenID),
            address: address, userAgent: userAgent)
    }
}
