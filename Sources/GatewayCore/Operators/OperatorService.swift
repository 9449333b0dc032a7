import Foundation

/// Creates operators and binds their roles (issue 48): the rules live here once, for
/// `gatewayctl` on the database today and the admin API next. Every change is audited in
/// the same transaction as the change.
public struct OperatorService: Sendable {
    private let operators: any OperatorStore
    private let clock: WallClock
    private let hasher: PasswordHasher

    public init(operators: any OperatorStore, clock: WallClock = .system, hasher: PasswordHasher = PasswordHasher()) {
        self.operators = operators
        self.clock = clock
        self.hasher = hasher
    }

    /// What a new operator needs: a person's password, nothing (a service account's secret
    /// is generated and returned once), or a service account's public keys (a JWK Set; it
    /// then signs assertions, `private_key_jwt`, and has no secret).
    public enum Credential: Sendable {
        case password(String)
        case generatedSecret
        case publicKeys(JSONValue)
    }

    /// A created operator, and for a service account its secret (shown once, stored hashed).
    public struct Created: Sendable {
        public var createdOperator: Operator
        public var bindings: [RoleBinding]
        public var secret: String?
    }

    /// Adds an operator named `name` holding `roles` (each platform-wide, or in a tenant).
    public func create(
        name: String, credential: Credential, roles: [(role: OperatorRole, tenantID: String?)] = [], actor: AuditActor,
        requestID: String? = nil
    ) async throws -> Created {
        guard OperatorName.isValid(name) else {
            throw OperatorError.invalid("operator names are 1-63 characters of a-z, 0-9, '.', '_' and '-', got \(name.prefix(64))")
        }
        var created = Operator(name: name, kind: .person, createdAt: clock.now())
        var secret: String?
        switch credential {
        case .password(let password):
            guard (8...1024).contains(password.count) else { throw OperatorError.invalid("passwords are 8-1024 characters") }
            created.passwordHash = try hasher.hash(password)
        case .generatedSecret:
            let generated = ClientSecret.generate()
            created.kind = .serviceAccount
            created.secretHash = generated.hash
            secret = generated.secret
        case .publicKeys(let jwks):
            guard JWK.isAssertionKeySet(jwks) else {
                throw OperatorError.invalid(
                    "the key set must be a JWK Set of 1-10 public signing keys (EC P-256 or RSA of 2048 bits or more, no private members)")
            }
            created.kind = .serviceAccount
            created.jwks = jwks
        }
        // A binding listed twice is held once (bindings are a set; the store's key says so).
        var seen: Set<String> = []
        let bindings = roles.map { RoleBinding(operatorID: created.id, role: $0.role, tenantID: $0.tenantID) }
            .filter { seen.insert($0.label).inserted }
        for binding in bindings { try binding.validate() }
        let after: JSONValue = .object([
            "name": .string(name), "kind": .string(created.kind.rawValue),
            "roles": .array(bindings.map { .string($0.label) }),
        ])
        try await operators.createOperator(
            created, bindings: bindings,
            audit: draft(
                .create, actor: actor, requestID: requestID, tenant: nil, id: created.id,
                change: AuditChange(before: nil, after: after)))
        return Created(createdOperator: created, bindings: bindings, secret: secret)
    }

    /// Binds `role` to the operator named `name`; false when it held exactly that already.
    public func bind(
        name: String, role: OperatorRole, tenantID: String?, miniAppIDs: [String] = [], actor: AuditActor,
        requestID: String? = nil
    ) async throws -> Bool {
        let target = try await find(name)
        let binding = RoleBinding(operatorID: target.id, role: role, tenantID: tenantID, miniAppIDs: miniAppIDs)
        try binding.validate()
        let before = try await operators.bindings(operatorID: target.id)
        let change = AuditChange(before: Self.roles(before), after: Self.roles(Self.replacing(before, with: binding)))
        return try await operators.bind(
            binding,
            audit: draft(.update, actor: actor, requestID: requestID, tenant: tenantID, id: target.id, change: change))
    }

    /// Removes `role` in `tenantID`'s scope from the operator named `name`; false: it had none.
    public func unbind(
        name: String, role: OperatorRole, tenantID: String?, actor: AuditActor, requestID: String? = nil
    ) async throws -> Bool {
        let target = try await find(name)
        let before = try await operators.bindings(operatorID: target.id)
        let after = before.filter { !($0.role == role && $0.tenantID == tenantID) }
        return try await operators.unbind(
            operatorID: target.id, role: role, tenantID: tenantID,
            audit: draft(
                .update, actor: actor, requestID: requestID, tenant: tenantID, id: target.id,
                change: AuditChange(before: Self.roles(before), after: Self.roles(after))))
    }

    /// Disables (or enables) the operator named `name`; disabling ends its sign-ins at once,
    /// on every replica (each call resolves its token in the database). False: it was in that
    /// state already.
    public func setDisabled(name: String, disabled: Bool, actor: AuditActor, requestID: String? = nil) async throws
        -> Bool
    {
        let target = try await find(name)
        return try await operators.setDisabled(
            operatorID: target.id, disabled: disabled,
            audit: draft(
                .act, actor: actor, requestID: requestID, tenant: nil, id: target.id,
                change: AuditChange(
                    before: .object(["disabled": .bool(target.disabled)]), after: .object(["disabled": .bool(disabled)]))))
    }

    /// Enrols a new TOTP second factor for the person named `name` (replacing any), or removes
    /// it (`enrol` false); either ends the person's sign-ins. Returns the new Base32 secret,
    /// shown once (it is stored sealed).
    public func setSecondFactor(name: String, enrol: Bool, actor: AuditActor, requestID: String? = nil) async throws
        -> String?
    {
        let target = try await find(name)
        guard target.kind == .person else {
            throw OperatorError.invalid("\(name) is a service account: only people have a second factor")
        }
        let had = try await operators.totpSecret(operatorID: target.id) != nil
        let secret = enrol ? TOTP.newSecret() : nil
        try await operators.setTOTP(
            operatorID: target.id, secret: secret.map(SecretValue.init),
            audit: draft(
                .update, actor: actor, requestID: requestID, tenant: nil, id: target.id,
                change: AuditChange(before: .object(["totp": .bool(had)]), after: .object(["totp": .bool(enrol)]))))
        return secret
    }

    /// A new secret for the service account named `name` (shown once, stored hashed); the old
    /// one stops working and every token it holds ends.
    public func rotateSecret(name: String, actor: AuditActor, requestID: String? = nil) async throws -> String {
        let target = try await find(name)
        guard target.kind == .serviceAccount, target.jwks == nil else {
            throw OperatorError.invalid(
                target.kind == .person
                    ? "\(name) is a person: people sign in with a password"
                    : "\(name) signs assertions with its keys (private_key_jwt): it has no secret")
        }
        let generated = ClientSecret.generate()
        try await operators.setSecretHash(
            operatorID: target.id, secretHash: generated.hash,
            audit: draft(
                .act, actor: actor, requestID: requestID, tenant: nil, id: target.id,
                change: AuditChange(before: nil, after: .object(["secret": "new (masked)"]))))
        return generated.secret
    }

    /// Deletes the operator named `name` with its bindings and sign-ins. The audit trail keeps
    /// its records (they name its id and name).
    public func delete(name: String, actor: AuditActor, requestID: String? = nil) async throws {
        let target = try await find(name)
        let bindings = try await operators.bindings(operatorID: target.id)
        let before: JSONValue = .object([
            "name": .string(name), "kind": .string(target.kind.rawValue),
            "roles": .array(bindings.map(\.label).sorted().map(JSONValue.string)),
        ])
        guard
            try await operators.deleteOperator(
                operatorID: target.id,
                audit: draft(
                    .delete, actor: actor, requestID: requestID, tenant: nil, id: target.id,
                    change: AuditChange(before: before, after: nil)))
        else { throw OperatorError.unknownOperator(name) }
    }

    /// Every operator with its bindings, by name: two reads, whatever the number of operators.
    public func list() async throws -> [(operator: Operator, bindings: [RoleBinding])] {
        let bindings = Dictionary(grouping: try await operators.allBindings(), by: \.operatorID)
        return try await operators.allOperators().map { ($0, bindings[$0.id] ?? []) }
    }

    /// The operator named `name` with its bindings.
    public func find(named name: String) async throws -> (operator: Operator, bindings: [RoleBinding]) {
        let found = try await find(name)
        return (found, try await operators.bindings(operatorID: found.id))
    }

    private func find(_ name: String) async throws -> Operator {
        guard let found = try await operators.findOperator(named: name) else { throw OperatorError.unknownOperator(name) }
        return found
    }

    private func draft(
        _ verb: AdminVerb, actor: AuditActor, requestID: String?, tenant: String?, id: String, change: AuditChange
    ) -> AuditDraft {
        AuditDraft(
            time: clock.now(), actor: actor, requestID: requestID, verb: verb,
            resource: AuditResource(type: .operator, tenant: tenant, id: id), outcome: .succeeded(verb), change: change)
    }

    private static func replacing(_ bindings: [RoleBinding], with binding: RoleBinding) -> [RoleBinding] {
        bindings.filter { !($0.role == binding.role && $0.tenantID == binding.tenantID) } + [binding]
    }

    private static func roles(_ bindings: [RoleBinding]) -> JSONValue {
        .object(["roles": .array(bindings.map(\.label).sorted().map(JSONValue.string))])
    }
}
