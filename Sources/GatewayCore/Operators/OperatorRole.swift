/// The roles an operator can be bound to, and THE table of what each may do (issue 48). The
/// authorizer, `gatewayctl operator roles` (which writes the table in docs/operators.md) and
/// the tests read ``permissions``; nothing else decides.
public enum OperatorRole: String, Sendable, CaseIterable, Codable {
    /// Everything: tenants, operators, every tenant's resources. Bound platform-wide only.
    case platformAdmin = "platform-admin"
    /// Everything inside its tenants except creating or deleting the tenant itself and
    /// managing operators; reads its tenants' audit trail.
    case tenantAdmin = "tenant-admin"
    /// Release policies of its tenants (optionally only of named mini apps): read, change,
    /// act (halt, resume, rollback, withdraw).
    case releaseManager = "release-manager"
    /// Sends notifications and reads their receipts.
    case pushSender = "push-sender"
    /// Reads everything incl. the audit trail; changes nothing.
    case auditor
    /// Reads configuration (never a secret: those are write-only for every role); no audit.
    case viewer

    /// The resources inside a tenant: what a tenant-scoped binding can reach.
    static let tenantResources: [AdminResource] = [
        .client, .user, .signingKey, .release, .pushCredential, .notification, .trustedIssuer, .identityProvider,
        .linkDomain, .localization, .storage, .analytics,
    ]

    /// What the role may do wherever it is bound.
    public var permissions: Set<AdminPermission> {
        switch self {
        case .platformAdmin:
            return AdminPermission.all(on: AdminResource.allCases)
        case .tenantAdmin:
            return AdminPermission.all(on: Self.tenantResources)
                .union(AdminPermission.verbs([.read, .update, .act], on: [.tenant]))
                .union(AdminPermission.verbs([.read], on: [.operator, .audit]))
        case .releaseManager:
            return AdminPermission.verbs([.read, .update, .act], on: [.release])
                .union(AdminPermission.verbs([.read], on: [.tenant, .analytics]))
        case .pushSender:
            return AdminPermission.verbs([.read, .act], on: [.notification])
                .union(AdminPermission.verbs([.read], on: [.tenant]))
        case .auditor:
            return AdminPermission.verbs([.read], on: AdminResource.allCases)
        case .viewer:
            return AdminPermission.verbs([.read], on: AdminResource.allCases.filter { $0 != .audit && $0 != .operator })
        }
    }

    /// One line for `--help`, `operator roles` and the docs.
    public var summary: String {
        switch self {
        case .platformAdmin: "everything: tenants, operators and every tenant's resources (platform-wide only)"
        case .tenantAdmin: "everything inside its tenants but creating/deleting them and managing operators"
        case .releaseManager: "release policies of its tenants, optionally of named mini apps only"
        case .pushSender: "send notifications and read their receipts"
        case .auditor: "read everything, the audit trail included; change nothing"
        case .viewer: "read configuration (secrets stay masked); no audit trail"
        }
    }

    /// Whether a binding of this role must be platform-wide (no tenant).
    public var platformOnly: Bool { self == .platformAdmin }

    /// Whether a binding of this role may name mini apps.
    public var takesMiniApps: Bool { self == .releaseManager }
}
