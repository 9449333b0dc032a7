/// One role held by one operator, platform-wide or in one tenant (issue 48).
public struct RoleBinding: Sendable, Hashable, Codable {
    /// The operator's ``Operator/id``.
    public var operatorID: String
    public var role: OperatorRole
    /// The tenant it applies in; nil: every tenant and the platform itself.
    public var tenantID: String?
    /// For a release manager: only these mini apps' policies (empty: every mini app).
    public var miniAppIDs: [String]

    public init(operatorID: String, role: OperatorRole, tenantID: String? = nil, miniAppIDs: [String] = []) {
        self.operatorID = operatorID
        self.role = role
        self.tenantID = tenantID
        self.miniAppIDs = miniAppIDs.sorted()
    }

    /// Where the binding applies, as `gatewayctl operator list` and the audit trail write it:
    /// `platform`, `tenant acme`, `tenant acme, mini apps hello, pay`.
    public var scopeDescription: String {
        guard let tenantID else { return "platform" }
        return miniAppIDs.isEmpty ? "tenant \(tenantID)" : "tenant \(tenantID), mini apps \(miniAppIDs.joined(separator: ", "))"
    }

    /// Throws ``OperatorError/invalidBinding(_:)`` when the role cannot be bound this way.
    public func validate() throws(OperatorError) {
        if role.platformOnly, tenantID != nil {
            throw .invalidBinding("role \(role.rawValue) is platform-wide: bind it without --tenant")
        }
        if !miniAppIDs.isEmpty {
            guard role.takesMiniApps else { throw .invalidBinding("only release-manager bindings name mini apps") }
            guard miniAppIDs.count <= 100 else { throw .invalidBinding("at most 100 mini apps per binding") }
            for id in miniAppIDs where id.isEmpty || id.utf8.count > 128 || id.contains(",") {
                throw .invalidBinding("mini app ids are 1-128 characters without ','")
            }
        }
        if let tenantID, !TenantID.isValid(tenantID) { throw .invalidBinding("no tenant \(tenantID)") }
    }
}

/// What the operator stores refuse.
public enum OperatorError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Bad input (a name, a password): nothing written.
    case invalid(String)
    /// A binding that cannot be (a platform-wide role in a tenant, mini apps on a role that
    /// takes none): nothing written.
    case invalidBinding(String)
    /// The name is taken.
    case nameTaken(String)
    /// No such operator.
    case unknownOperator(String)
    /// A binding names a tenant that does not exist.
    case unknownTenant(String)

    public var description: String {
        switch self {
        case .invalid(let message), .invalidBinding(let message): message
        case .nameTaken(let name): "an operator named \(name) exists"
        case .unknownOperator(let name): "no operator \(name)"
        case .unknownTenant(let id): "no tenant \(id)"
        }
    }
}

extension RoleBinding {
    /// How the audit trail names a binding held: `platform-admin@platform`,
    /// `release-manager@acme`, `release-manager@acme[hello,pay]`.
    public var label: String {
        let scope = tenantID ?? "platform"
        let apps = miniAppIDs.isEmpty ? "" : "[\(miniAppIDs.joined(separator: ","))]"
        return "\(role.rawValue)@\(scope)\(apps)"
    }
}
