import Foundation

/// Disabling a user: sign-in refused and everything the user holds revoked, at once.
public protocol UserSuspender: Sendable {
    /// In one transaction: marks the user `subject` of `tenantID` disabled (or enabled) and, when
    /// disabling, revokes every refresh family of the user and records every unexpired access
    /// token and mini-app token of the user as revoked (every replica picks revocations up from
    /// the database). Re-enabling revives nothing: the user signs in again. Throws `notFound`
    /// for an unknown user, and then nothing changes.
    /// - Returns: the user as stored and how many live tokens were revoked.
    /// `check(current)` may throw to refuse (a stale revision), and then nothing changes; a user
    /// already in the asked state is answered as it is, nothing written. A change bumps the
    /// user's revision and appends `trail(old, new)` in the same transaction.
    func setUserDisabled(
        _ disabled: Bool, tenantID: String, subject: String, now: Date, check: (@Sendable (LocalUser) throws -> Void)?,
        trail: (@Sendable (LocalUser, LocalUser) -> AuditDraft)?
    ) async throws -> (user: LocalUser, revokedTokens: Int)

    /// In one transaction: `change(current)` on the user `username` as
    /// ``UserStore/writeUser(tenantID:username:trail:_:)`` does (revision bumped, `trail(old, new)`
    /// appended), and every session of the user ended as disabling does (refresh families
    /// revoked, unexpired access and mini-app tokens recorded as revoked). A recovery's new
    /// password and the end of the old sessions stand or fall together. Throws `notFound` for
    /// an unknown user; when `change` throws, nothing changes.
    /// - Returns: the user as stored and the revocations recorded, for this process to announce.
    func writeUserEndingSessions(
        tenantID: String, username: String, now: Date, trail: (@Sendable (LocalUser, LocalUser) -> AuditDraft)?,
        _ change: @escaping @Sendable (LocalUser) throws -> LocalUser
    ) async throws -> (user: LocalUser, revoked: [RecordedRevocation])
}

extension UserSuspender {
    /// Disables (or enables) the user without a precondition or an audit record.
    public func setUserDisabled(
        _ disabled: Bool, tenantID: String, subject: String, now: Date
    ) async throws -> (user: LocalUser, revokedTokens: Int) {
        try await setUserDisabled(disabled, tenantID: tenantID, subject: subject, now: now, check: nil, trail: nil)
    }
}
