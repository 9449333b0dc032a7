import Foundation
import Logging

/// Development-only seed of the `demo` tenant's sign-in: a public first-party PKCE client `demo-app` (the demo host app)
/// (loopback redirect `http://127.0.0.1/callback`, any port) and a user `demo` whose random
/// password is written once to `demo-user.txt` (mode 0600) beside the database — never logged.
public enum DemoAuth {
    public static let clientID = "demo-app"
    public static let username = "demo"
    public static let redirectURI = "http://127.0.0.1/callback"

    /// Seeds client and user when the tenant exists and they do not; true when seeded.
    public static func seedIfMissing(
        tenants: any TenantStore, store: any AuthStore, tenantID: String, passwordFile: String? = nil, logger: Logger
    ) async throws -> Bool {
        guard try await tenants.tenant(id: tenantID) != nil,
            try await store.client(tenantID: tenantID, clientID: clientID) == nil
        else { return false }
        do {
            // The demo host app: first-party, holding the host app's surface.
            var client = OAuthClient(
                tenantID: tenantID, clientID: clientID, redirectURIs: [redirectURI],
                postLogoutRedirectURIs: ["http://127.0.0.1/logged-out"])
            client.firstParty = true
            client.registerDefaultScopes(nil)
            try await store.addClient(client, secretHash: nil)
        } catch AuthStoreError.alreadyExists {
            return false  // another replica starting at the same time seeded it
        }
        if try await store.user(tenantID: tenantID, username: username) == nil {
            let password = Base64URL.random(byteCount: 12)
            try await store.addUser(
                LocalUser(
                    tenantID: tenantID, username: username, name: "Demo User", email: "demo@example.invalid",
                    passwordHash: try PasswordHasher().hash(password)))
            if let passwordFile {
                guard
                    FileManager.default.createFile(
                        atPath: passwordFile, contents: Data("username: \(username)\npassword: \(password)\n".utf8),
                        attributes: [.posixPermissions: 0o600])
                else {
                    logger.warning(
                        "demo user '\(username)': cannot write its password to \(passwordFile); set a new one with gatewayctl user passwd"
                    )
                    return true
                }
                logger.notice("demo user '\(username)': password written to \(passwordFile) (development only)")
            }
        }
        return true
    }
}
