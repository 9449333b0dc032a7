/// Decides whether an operator holding some role bindings may do one thing (issue 48), from
/// ``OperatorRole/permissions`` alone.
public enum AdminAuthorizer {
    /// The answer to one call.
    public enum Decision: Sendable, Equatable {
        case allowed
        /// 403 `forbidden`, naming the permission missing in that scope.
        case forbidden(missing: AdminPermission)
        /// 404: the operator holds nothing in that tenant, so it is not told the tenant exists.
        case notFound
    }

    /// Whether `bindings` allow `permission` on a resource of `tenantID` (nil: a platform
    /// resource, such as the tenant list or the operators), of `miniAppID` when the resource
    /// belongs to one mini app (release policies).
    public static func decide(
        _ permission: AdminPermission, tenantID: String?, miniAppID: String? = nil, bindings: [RoleBinding]
    ) -> Decision {
        let inScope = bindings.filter { $0.tenantID == nil || ($0.tenantID == tenantID && tenantID != nil) }
        if tenantID != nil, inScope.isEmpty { return .notFound }
        let allowing = inScope.filter { binding in
            guard binding.role.permissions.contains(permission) else { return false }
            guard !binding.miniAppIDs.isEmpty else { return true }
            // A binding to named mini apps reaches those apps' resources, and lists (filtered).
            if let miniAppID { return binding.miniAppIDs.contains(miniAppID) }
            return permission.verb == .read
        }
        return allowing.isEmpty ? .forbidden(missing: permission) : .allowed
    }

    /// The tenants whose resources `bindings` can see: nil means every tenant.
    public static func visibleTenants(_ bindings: [RoleBinding]) -> Set<String>? {
        if bindings.contains(where: { $0.tenantID == nil }) { return nil }
        return Set(bindings.compactMap(\.tenantID))
    }
}
