/// Contacts' names and emails sealed at rest (issue 47), as device tokens are: each value
/// bound to its tenant, owner, contact and field. Rows written before sealing (flagged unsealed)
/// are read as they are until ``MessagingStore/sealLegacyContacts(limit:)`` seals them.
public struct ContactSealing: Sendable {
    private let sealer: SecretSealer

    public init(sealer: SecretSealer) {
        self.sealer = sealer
    }

    /// `contact`'s name and email as stored for `userID`.
    public func seal(_ contact: Contact, tenantID: String, userID: String) throws -> (name: String?, email: String?) {
        (
            try contact.name.map { try sealer.seal($0, context: Self.context(tenantID, userID, contact.id, "name")) },
            try contact.email.map { try sealer.seal($0, context: Self.context(tenantID, userID, contact.id, "email")) }
        )
    }

    /// A stored name or email (`field`: `name` or `email`), opened when `sealed`.
    public func open(
        _ value: String?, sealed: Bool, field: String, tenantID: String, userID: String, contactID: String
    ) throws -> String? {
        guard sealed, let value else { return value }
        return try sealer.open(value, context: Self.context(tenantID, userID, contactID, field))
    }

    /// A stored contact row as the contact it is.
    public func contact(
        id: String, name: String?, email: String?, isUser: Bool, sealed: Bool, tenantID: String, userID: String
    ) throws -> Contact {
        Contact(
            id: id,
            name: try open(name, sealed: sealed, field: "name", tenantID: tenantID, userID: userID, contactID: id),
            email: try open(email, sealed: sealed, field: "email", tenantID: tenantID, userID: userID, contactID: id),
            isUser: isUser)
    }

    private static func context(_ tenantID: String, _ userID: String, _ contactID: String, _ field: String) -> String {
        "contact:\(tenantID):\(userID):\(contactID):\(field)"
    }
}
