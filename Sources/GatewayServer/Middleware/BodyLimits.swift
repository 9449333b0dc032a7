import GatewayCore

/// The largest request body of each kind (``EdgeFacts/BodyKind``: the contract says which
/// an operation takes). Checked before anything is read: a
/// declared `Content-Length` over the limit is refused at once, and a body without one is
/// cut off the moment it passes the limit (``BodyLimitMiddleware``).
public struct BodyLimits: Sendable, Equatable {
    /// The OAuth form endpoints (`application/x-www-form-urlencoded`, and `/t/{tenant}/oauth2/...`).
    public var form: Int
    /// A batch of analytics events.
    public var analytics: Int
    /// Every other JSON body.
    public var json: Int
    /// Room for the JSON around a secure-storage write, above the tenant's storage cap.
    public var storageOverhead: Int
    /// A storage write never accepts more than this, whatever the tenant's cap.
    public var storageCeiling: Int
    /// A contact list upload (``contactsBytes(maxContacts:)`` of the configured maximum).
    public var contacts: Int

    /// The contact upload limit for `maxContacts`: 256 bytes per contact, at least 64 KiB.
    public static func contactsBytes(maxContacts: Int) -> Int { max(64 << 10, maxContacts * 256) }

    public init(
        form: Int = 8 << 10, analytics: Int = 512 << 10, json: Int = 64 << 10, storageOverhead: Int = 64 << 10,
        storageCeiling: Int = 64 << 20, contacts: Int = Self.contactsBytes(maxContacts: ContactRules.defaultMaxContacts)
    ) {
        self.contacts = contacts
        self.form = form
        self.analytics = analytics
        self.json = json
        self.storageOverhead = storageOverhead
        self.storageCeiling = storageCeiling
    }

    /// The limit for a body of `kind` (the operation's, see ``EdgeFacts``); the tenant, when
    /// resolved, sizes storage writes.
    func maximum(for kind: EdgeFacts.BodyKind, tenant: Tenant?) -> Int {
        switch kind {
        case .json: json
        case .form: form
        case .analytics: analytics
        case .contacts: contacts
        case .storage:
            min(
                storageCeiling,
                max(
                    json,
                    Int(clamping: tenant?.storageMaxSizeInBytes ?? Tenant.defaultStorageMaxSizeInBytes)
                        + storageOverhead))
        }
    }
}
