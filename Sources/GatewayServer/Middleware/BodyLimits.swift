import GatewayCore

/// The largest request body each route accepts. Checked before anything is read: a
/// declared `Content-Length` over the limit is refused at once, and a body without one is
/// cut off the moment it passes the limit (``BodyLimitMiddleware``).
public struct BodyLimits: Sendable, Equatable {
    /// The OAuth form endpoints (`/t/{tenant}/oauth2/...`).
    public var form: Int
    /// A batch of analytics events.
    public var analytics: Int
    /// Every other JSON body.
    public var json: Int
    /// Room for the JSON around a secure-storage write, above the tenant's storage cap.
    public var storageOverhead: Int
    /// A storage write never accepts more than this, whatever the tenant's cap.
    public var storageCeiling: Int

    public init(form: Int = 8 << 10, analytics: Int = 512 << 10, json: Int = 64 << 10, storageOverhead: Int = 64 << 10, storageCeiling: Int = 64 << 20) {
        self.form = form
        self.analytics = analytics
        self.json = json
        self.storageOverhead = storageOverhead
        self.storageCeiling = storageCeiling
    }

    /// The limit for a request to `path` with `method` (the tenant, when resolved, sizes
    /// storage writes).
    func maximum(method: String, path: String, tenant: Tenant?) -> Int {
        guard path.hasPrefix("/t/") else { return json }
        let parts = path.dropFirst(3).split(separator: "/", omittingEmptySubsequences: false)
        if parts.count >= 3, parts[1] == "oauth2" { return form }
        if parts.count == 3, parts[1] == "v1", parts[2] == "analytics" { return analytics }
        if method == "PUT", parts.count == 6, parts[1] == "v1", parts[2] == "me", parts[3] == "miniapps", parts[5] == "storage" {
            let cap = Int(clamping: tenant?.storageMaxSizeInBytes ?? Tenant.defaultStorageMaxSizeInBytes)
            return min(storageCeiling, max(json, cap + storageOverhead))
        }
        return json
    }
}
