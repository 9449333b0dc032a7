import Foundation

/// A role binding as the admin API names it: a role's name (checked against the role table
/// here, so an unknown one is a clear refusal), a tenant or none, mini apps.
public struct AdminBindingRequest: Sendable, Equatable {
    public var role: String
    public var tenantID: String?
    public var miniAppIDs: [String]

    public init(role: String, tenantID: String?, miniAppIDs: [String] = []) {
        self.role = role
        self.tenantID = tenantID
        self.miniAppIDs = miniAppIDs
    }
}

extension AdminService {
    /// The operators the call may see, by name, after `cursor` (a name): every operator for
    /// a platform-wide `operator:read`; otherwise those bound in tenants where the call
    /// reads operators, with those bindings only.
    public func listOperators(
        _ call: AdminCall, cursor: String?, limit: Int
    ) async throws -> (items: [(operator: Operator, bindings: [RoleBinding])], next: String?) {
        try Self.checkLimit(limit)
        try await authorizeSomewhere(call, AdminPermission(.read, .operator))
        var visible: [(operator: Operator, bindings: [RoleBinding])] = []
        for entry in try await operatorService.list() where cursor.map({ entry.operator.name > $0 }) ?? true {
            if let shown = visibleOperator(call, entry) { visible.append(shown) }
        }
        return try Self.page(visible, key: \.operator.name, cursor: nil, limit: limit)
    }

    /// One operator the call may see (404 `operator_not_found` otherwise, as for a tenant).
    public func operatorNamed(_ call: AdminCall, name: String) async throws -> (operator: Operator, bindings: [RoleBinding]) {
        try await authorizeSomewhere(call, AdminPermission(.read, .operator))
        guard let found = try? await operatorService.find(named: name), let visible = visibleOperator(call, found) else {
            throw AdminError.operatorNotFound(name)
        }
        return visible
    }

    /// Creates a service account holding `roles`; returns it with its secret (shown once).
    /// People are created with `gatewayctl operator create --password-stdin` until they can
    /// sign in to the admin API.
    public func createServiceAccount(
        _ call: AdminCall, name: String, roles: [AdminBindingRequest], jwks: JSONValue? = nil
    ) async throws -> OperatorService.Created {
        try await authorize(call, AdminPermission(.create, .operator), tenantID: nil, resourceID: name)
        return try await operatorWrite(call, .create, tenantID: nil, name: name) {
            let parsed = try roles.map { request -> (role: OperatorRole, tenantID: String?) in
                guard request.miniAppIDs.isEmpty else {
                    throw AdminError.invalidBinding("bind mini apps after creating: POST …/operators/\(name)/bindings")
                }
                return (try Self.role(request.role), request.tenantID)
            }
            return try await operatorService.create(
                name: name, credential: jwks.map(OperatorService.Credential.publicKeys) ?? .generatedSecret, roles: parsed,
                actor: call.actor, requestID: call.requestID)
        }
    }

    /// Binds a role to the operator named `name` (replacing the same role in the same scope).
    public func bindOperator(
        _ call: AdminCall, name: String, binding: AdminBindingRequest
    ) async throws -> (operator: Operator, bindings: [RoleBinding]) {
        try await authorize(call, AdminPermission(.update, .operator), tenantID: binding.tenantID, resourceID: name)
        return try await operatorWrite(call, .update, tenantID: binding.tenantID, name: name) {
            _ = try await operatorService.bind(
                name: name, role: try Self.role(binding.role), tenantID: binding.tenantID, miniAppIDs: binding.miniAppIDs,
                actor: call.actor, requestID: call.requestID)
            return try await operatorService.find(named: name)
        }
    }

    /// Removes the operator's binding of `role` in `tenantID`'s scope (404 `binding_not_found`: none).
    public func unbindOperator(
        _ call: AdminCall, name: String, role: String, tenantID: String?
    ) async throws -> (operator: Operator, bindings: [RoleBinding]) {
        try await authorize(call, AdminPermission(.update, .operator), tenantID: tenantID, resourceID: name)
        return try await operatorWrite(call, .update, tenantID: tenantID, name: name) {
            guard
                try await operatorService.unbind(
                    name: name, role: try Self.role(role), tenantID: tenantID, actor: call.actor, requestID: call.requestID)
            else { throw AdminError.bindingNotFound("\(name) holds no \(role) in \(tenantID ?? "the platform")") }
            return try await operatorService.find(named: name)
        }
    }

    /// Disables (ending every sign-in it holds at once) or enables the operator named `name`.
    /// An operator cannot disable itself (422 `invalid_operator`): that is how the last
    /// platform admin would lock everyone out.
    public func setOperatorDisabled(
        _ call: AdminCall, name: String, disabled: Bool
    ) async throws -> (operator: Operator, bindings: [RoleBinding]) {
        try await authorize(call, AdminPermission(.act, .operator), tenantID: nil, resourceID: name)
        return try await operatorWrite(call, .act, tenantID: nil, name: name) {
            if disabled, name == call.session.caller.name { throw OperatorError.invalid("an operator cannot disable itself") }
            _ = try await operatorService.setDisabled(
                name: name, disabled: disabled, actor: call.actor, requestID: call.requestID)
            return try await operatorService.find(named: name)
        }
    }

    /// Deletes the operator named `name` with its bindings and sign-ins (not itself).
    public func deleteOperator(_ call: AdminCall, name: String) async throws {
        try await authorize(call, AdminPermission(.delete, .operator), tenantID: nil, resourceID: name)
        try await operatorWrite(call, .delete, tenantID: nil, name: name) {
            if name == call.session.caller.name { throw OperatorError.invalid("an operator cannot delete itself") }
            try await operatorService.delete(name: name, actor: call.actor, requestID: call.requestID)
        }
    }

    /// A new secret for the service account named `name` (shown once); the old one and its
    /// tokens stop working.
    public func rotateOperatorSecret(_ call: AdminCall, name: String) async throws -> String {
        try await authorize(call, AdminPermission(.act, .operator), tenantID: nil, resourceID: name)
        return try await operatorWrite(call, .act, tenantID: nil, name: name) {
            try await operatorService.rotateSecret(name: name, actor: call.actor, requestID: call.requestID)
        }
    }

    var operatorService: OperatorService { OperatorService(operators: operators, clock: clock) }

    /// The operator as `call` may see it: all of it platform-wide, else only its bindings in
    /// tenants where the call reads operators (nil: none there).
    private func visibleOperator(
        _ call: AdminCall, _ entry: (operator: Operator, bindings: [RoleBinding])
    ) -> (operator: Operator, bindings: [RoleBinding])? {
        let read = AdminPermission(.read, .operator)
        if AdminAuthorizer.decide(read, tenantID: nil, bindings: call.session.bindings) == .allowed { return entry }
        let shown = entry.bindings.filter { binding in
            binding.tenantID.map {
                AdminAuthorizer.decide(read, tenantID: $0, bindings: call.session.bindings) == .allowed
            } ?? false
        }
        return shown.isEmpty ? nil : (entry.operator, shown)
    }

    /// Throws 403 unless some binding of the call grants `permission` (platform-wide or in a tenant).
    private func authorizeSomewhere(_ call: AdminCall, _ permission: AdminPermission) async throws {
        let tenants = Set(call.session.bindings.compactMap(\.tenantID))
        let anywhere =
            AdminAuthorizer.decide(permission, tenantID: nil, bindings: call.session.bindings) == .allowed
            || tenants.contains { AdminAuthorizer.decide(permission, tenantID: $0, bindings: call.session.bindings) == .allowed }
        if !anywhere { try await authorize(call, permission, tenantID: nil) }
    }

    /// One operator write: domain refusals become the admin API's, and are audited.
    private func operatorWrite<T>(
        _ call: AdminCall, _ verb: AdminVerb, tenantID: String?, name: String, _ write: () async throws -> T
    ) async throws -> T {
        let refusal: (AdminError, AuditOutcome)
        do {
            return try await write()
        } catch let error as OperatorError {
            switch error {
            case .invalid(let reason) where verb != .update:
                refusal = (.invalidOperator(reason), AuditOutcome(status: 422, code: "invalid_operator"))
            case .invalid(let reason), .invalidBinding(let reason):
                refusal = (.invalidBinding(reason), AuditOutcome(status: 422, code: "invalid_binding"))
            case .unknownTenant(let id):
                refusal = (.invalidBinding("no tenant \(id)"), AuditOutcome(status: 422, code: "invalid_binding"))
            case .nameTaken(let taken): refusal = (.operatorExists(taken), AuditOutcome(status: 409, code: "operator_exists"))
            case .unknownOperator(let unknown):
                refusal = (.operatorNotFound(unknown), AuditOutcome(status: 404, code: "operator_not_found"))
            }
        } catch let error as AdminError {
            switch error {
            case .invalidBinding: refusal = (error, AuditOutcome(status: 422, code: "invalid_binding"))
            case .bindingNotFound: refusal = (error, AuditOutcome(status: 404, code: "binding_not_found"))
            default: throw error
            }
        }
        // A refusal naming a tenant that does not exist is the platform's to record.
        var chainTenant: String?
        if let tenantID, try await tenants.tenant(id: tenantID) != nil { chainTenant = tenantID }
        try await refused(call, verb, AuditResource(type: .operator, tenant: chainTenant, id: name), refusal.1)
        throw refusal.0
    }

    /// `name` as a role of the role table (422 `invalid_binding` naming the roles otherwise).
    static func role(_ name: String) throws -> OperatorRole {
        guard let role = OperatorRole(rawValue: name) else {
            throw AdminError.invalidBinding(
                "no role \(name.prefix(64)); roles: \(OperatorRole.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return role
    }
}
