import Foundation

/// What users let third-party clients have: per (tenant, user, client) the scopes the user
/// allowed on the consent page. A first-party client (the tenant's own apps) asks no consent.
/// The grants go with the account when it is erased (``UserErasure/tables``).
public protocol ClientConsentStore: Sendable {
    /// The scopes `subject` allowed `clientID` (empty: never asked, or all withdrawn).
    func grantedScopes(tenantID: String, subject: String, clientID: String) async throws -> Set<String>
    /// Adds `scopes` to what `subject` allowed `clientID` (kept: what was allowed before).
    func grant(_ scopes: Set<String>, tenantID: String, subject: String, clientID: String, at: Date) async throws
}
