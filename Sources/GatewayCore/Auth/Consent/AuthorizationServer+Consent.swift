import Foundation

extension AuthorizationServer {
    /// Whether `validated` must show the consent page to `subject` before a code is issued: a
    /// third-party client asking a scope the user has not allowed it, or any third-party request
    /// with `prompt=consent`. A first-party client (the tenant's own apps) never asks.
    public func needsConsent(_ validated: ValidatedAuthorization, subject: String) async throws -> Bool {
        guard !validated.client.isFirstParty else { return false }
        if validated.request.prompts.contains("consent") { return true }
        let granted = try await users.grantedScopes(
            tenantID: validated.client.tenantID, subject: subject, clientID: validated.client.clientID)
        return !Self.scopes(of: validated.scope).isSubset(of: granted)
    }

    /// The scope tokens of a space-separated `scope`.
    public static func scopes(of scope: String) -> Set<String> {
        Set(scope.split(separator: " ").map(String.init))
    }

    /// Uses up a pushed request's `request_uri` (RFC 9126: once), when still there.
    func discardPushedRequest(_ requestURI: String, tenantID: String) async throws {
        guard requestURI.hasPrefix(Self.requestURIPrefix) else { return }
        _ = try await cache.take(
            Self.pushedRequestKey(tenantID: tenantID, id: requestURI.dropFirst(Self.requestURIPrefix.count)))
    }
}
