/// What an operator can act on through the admin API and `gatewayctl` (issue 48): one kind
/// of resource, named as the audit trail and the role table name it.
public enum AdminResource: String, Sendable, CaseIterable, Codable, Comparable {
    case tenant
    case client
    case user
    case signingKey = "signing-key"
    case release
    case pushCredential = "push-credential"
    case notification
    case trustedIssuer = "trusted-issuer"
    case identityProvider = "identity-provider"
    case linkDomain = "link-domain"
    case localization
    case storage
    case analytics
    case `operator`
    case audit

    public static func < (lhs: AdminResource, rhs: AdminResource) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// What an operator does to a resource.
public enum AdminVerb: String, Sendable, CaseIterable, Codable, Comparable {
    /// Look at it (lists, reads; secrets stay masked whatever the role).
    case read
    /// Make a new one (a tenant, a client, an operator).
    case create
    /// Change it (a merge patch, a replaced policy, a role binding).
    case update
    /// Remove it.
    case delete
    /// Run an action on it (a release action, a send, a key rotation, a suspension).
    case act

    public static func < (lhs: AdminVerb, rhs: AdminVerb) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// One permission: a verb on a kind of resource, written `release:act`.
public struct AdminPermission: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var verb: AdminVerb
    public var resource: AdminResource

    public init(_ verb: AdminVerb, _ resource: AdminResource) {
        self.verb = verb
        self.resource = resource
    }

    public var description: String { "\(resource.rawValue):\(verb.rawValue)" }

    public static func < (lhs: AdminPermission, rhs: AdminPermission) -> Bool {
        (lhs.resource, lhs.verb) < (rhs.resource, rhs.verb)
    }

    /// Every verb on each of `resources`.
    static func all(on resources: [AdminResource]) -> Set<AdminPermission> {
        Set(resources.flatMap { resource in AdminVerb.allCases.map { AdminPermission($0, resource) } })
    }

    /// `verbs` on each of `resources`.
    static func verbs(_ verbs: [AdminVerb], on resources: [AdminResource]) -> Set<AdminPermission> {
        Set(resources.flatMap { resource in verbs.map { AdminPermission($0, resource) } })
    }
}
