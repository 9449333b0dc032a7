import Foundation

/// Erasing a user: the account and everything the gateway keeps about it, at once.
public protocol UserEraser: Sendable {
    /// In one transaction: records every unexpired access token and mini-app token of the user
    /// `subject` of `tenantID` as revoked (every replica picks revocations up from the
    /// database), then deletes the user's rows from each of ``UserErasure/tables``. Throws
    /// `notFound` for an unknown user, and then nothing changes.
    /// `check(current)` may throw to refuse (a stale revision), and then nothing changes;
    /// `trail(user)` is appended in the same transaction.
    func eraseUser(
        tenantID: String, subject: String, now: Date, check: (@Sendable (LocalUser) throws -> Void)?,
        trail: (@Sendable (LocalUser) -> AuditDraft)?
    ) async throws -> UserErasure
}

extension UserEraser {
    /// Erases the user without a precondition or an audit record.
    public func eraseUser(tenantID: String, subject: String, now: Date) async throws -> UserErasure {
        try await eraseUser(tenantID: tenantID, subject: subject, now: now, check: nil, trail: nil)
    }
}

/// What ``UserEraser/eraseUser(tenantID:subject:now:)`` did.
public struct UserErasure: Sendable, Equatable, Codable {
    /// Rows deleted, by table.
    public var deleted: [String: Int]
    /// Live access and mini-app tokens recorded as revoked.
    public var revokedTokens: Int

    public init(deleted: [String: Int], revokedTokens: Int) {
        self.deleted = deleted
        self.revokedTokens = revokedTokens
    }

    /// The tables holding a user's data and a column naming the user (a table may be listed
    /// with several columns; ``deleted`` sums them), in delete order (the
    /// account last; refresh tokens and access-token records go with their families).
    public static let tables: [(table: String, column: String)] = [
        ("user_consents", "user_id"), ("secure_storage_items", "user_id"), ("user_miniapps", "user_id"),
        ("miniapp_tokens", "user_id"), ("push_devices", "user_id"), ("push_deliveries", "user_id"),
        // Their contacts and blocks, their entries in others' (as a contact or blocked),
        // the messages they received and sent.
        ("user_contacts", "user_id"), ("user_contacts", "contact_id"), ("user_blocks", "user_id"),
        ("user_blocks", "blocked_id"), ("inbox_messages", "recipient_id"), ("inbox_messages", "sender_id"),
        ("message_sends", "sender_id"),
        ("auth_identity_links", "subject"), ("auth_client_consents", "subject"), ("auth_passkeys", "subject"), ("auth_refresh_families", "subject"),
        ("auth_users", "subject"),
    ]
}
