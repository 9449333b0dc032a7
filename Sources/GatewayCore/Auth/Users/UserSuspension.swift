import Foundation

/// Disabling a user: sign-in refused and everything the user holds revoked, at once.
public protocol UserSuspender: Sendable {
    /// In one transaction: marks the user `subject` of `tenantID` disabled (or enabled) and, when
    /// disabling, revokes every refresh family of the user and records every unexpired access
    /// token and mini-app token of the user as revoked (every replica picks revocations up from
    /// the database). Re-enabling revives nothing: the user signs in again. Throws `notFound`
    /// for an unknown user, and then nothing changes.
    /// - Returns: the user as stored and how many live tokens were revoked.
    func setUserDisabled(
        _ disabled: Bool, tenantID: String, subject: String, now: Date
    ) async throws -> (user: LocalUser, revokedTokens: Int)
}
