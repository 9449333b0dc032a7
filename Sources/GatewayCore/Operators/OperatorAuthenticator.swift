import Foundation

/// One authenticated call of the admin API: who, the bindings it holds right now, and how it
/// authenticated (for the audit trail).
public struct OperatorSession: Sendable {
    public var caller: Operator
    public var bindings: [RoleBinding]
    /// The access token's id: a prefix of its hash (never the token).
    public var tokenID: String
    public var clientID: String?
    public var method: String

    public init(caller: Operator, bindings: [RoleBinding], tokenID: String, clientID: String?, method: String) {
        self.caller = caller
        self.bindings = bindings
        self.tokenID = tokenID
        self.clientID = clientID
        self.method = method
    }
}

/// Why the operator realm's token endpoint refuses (RFC 6749 §5.2).
public enum OperatorTokenError: Error, Sendable, Equatable {
    case invalidRequest(String)
    case unsupportedGrantType
    case invalidClient
}

/// The operator realm's authorization server as far as automation needs it (issue 48):
/// service accounts trade their secret for an opaque access token (stored as a hash, valid
/// ``lifetime``); every admin call presents it and is resolved to the operator and the role
/// bindings it holds at that moment, so a binding removed or an operator disabled takes
/// effect on the next call, on every replica.
public struct OperatorAuthenticator: Sendable {
    private let operators: any OperatorStore
    private let clock: WallClock
    public let lifetime: Duration

    public init(operators: any OperatorStore, clock: WallClock = .system, lifetime: Duration = .seconds(900)) {
        self.operators = operators
        self.clock = clock
        self.lifetime = lifetime
    }

    /// Token prefix: says what a leaked string is (secret scanners match it).
    static let prefix = "sgo_"

    /// `grant_type=client_credentials` for the service account `clientID` with `secret`.
    public func token(grantType: String, clientID: String?, secret: String?) async throws -> (token: String, expiresIn: Int) {
        guard grantType == "client_credentials" else { throw OperatorTokenError.unsupportedGrantType }
        guard let clientID, let secret, !clientID.isEmpty, !secret.isEmpty else {
            throw OperatorTokenError.invalidClient
        }
        guard let found = try await operators.findOperator(named: clientID), found.kind == .serviceAccount,
            !found.disabled, let hash = found.secretHash, ClientSecret.verify(secret, hash: hash)
        else { throw OperatorTokenError.invalidClient }
        let token = Self.prefix + Base64URL.random(byteCount: 32)
        let now = clock.now()
        let seconds = Int(lifetime.components.seconds)
        try await operators.storeToken(
            hash: ClientSecret.hash(token), operatorID: found.id, clientID: clientID,
            expiresAt: now.addingTimeInterval(Double(seconds)), now: now)
        return (token, seconds)
    }

    /// The session of a bearer token; nil when it is unknown, expired, or its operator is
    /// disabled or gone.
    public func session(bearer token: String) async throws -> OperatorSession? {
        guard token.hasPrefix(Self.prefix), token.utf8.count <= 100 else { return nil }
        let hash = ClientSecret.hash(token)
        guard let (owner, clientID) = try await operators.tokenOwner(hash: hash, now: clock.now()), !owner.disabled
        else { return nil }
        return OperatorSession(
            caller: owner, bindings: try await operators.bindings(operatorID: owner.id),
            tokenID: String(hash.dropFirst("sha256$".count).prefix(16)), clientID: clientID,
            method: "client_secret")
    }
}
