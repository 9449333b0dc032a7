import Foundation

/// The mini-app access tokens issued to a user for one mini app, kept until they expire
/// so they can be revoked (consent withdrawn, user request).
public protocol MiniAppTokenLedger: Sendable {
    /// Records an issued token id.
    func record(_ owner: UserMiniAppKey, jti: String, expiresAt: Date) async throws
    /// Removes the owner's entries and returns those still live at `now`.
    func takeLive(_ owner: UserMiniAppKey, now: Date) async throws -> [IssuedTokenID]
}

/// One issued token id and when the token expires.
public struct IssuedTokenID: Sendable, Equatable {
    public var jti: String
    public var expiresAt: Date

    public init(jti: String, expiresAt: Date) {
        self.jti = jti
        self.expiresAt = expiresAt
    }
}
