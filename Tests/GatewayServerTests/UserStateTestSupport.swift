import Foundation
import GatewayAPI
import GatewayCore

extension FakePlatform {
    /// ``seedHello()`` plus `rakuten.miniapp.user.ACCESS_TOKEN` among hello's optional
    /// permissions (default language), so access tokens can be granted.
    func seedHelloWithAccessToken() {
        seedHello()
        set { state in
            state.metadata["hello/v1/"]?.optPermissions?.append(
                .init(name: CustomPermission.accessToken.rawValue, reason: "To call rae"))
        }
    }
}

extension GatewayHarness {
    /// A second signed-in user of `tenant` (own OAuth client and username) and a generated
    /// client carrying that user's bearer token.
    func secondUser(
        tenant: String, client: Client, port: Int, name: String = "bob"
    ) async throws -> (kit: OAuthTestKit, client: Client) {
        var kit = OAuthTestKit(harness: self, client: client, port: port)
        kit.tenant = tenant
        kit.clientID = "\(name)-app"
        kit.username = "\(name)-" + UUID().uuidString.prefix(8).lowercased()
        try await kit.setUp()
        let token = try await kit.tokens().accessToken
        return (kit, kit.authorizedClient("Bearer \(token)"))
    }

    /// Bearer access tokens of `count` users of `tenant` (`PREFIX-0`, …), issued in process at
    /// the tenant's test client (`test-app`, set up by a sign-in before) as a token exchange
    /// issues them: many distinct users without a sign-in each. The users are created too,
    /// unless `again` (new tokens for the same users).
    func mintedUsers(
        tenant: String, port: Int, prefix: String, count: Int, again: Bool = false
    ) async throws -> [(token: String, subject: String)] {
        let auth = bootstrap.services.auth
        guard let client = try await auth.clients.client(tenantID: tenant, clientID: "test-app") else {
            throw CancellationError()
        }
        var minted: [(token: String, subject: String)] = []
        for index in 0..<count {
            let subject = "\(prefix)-\(index)"
            if !again {
                try await operatorStores.auth.addUser(
                    LocalUser(tenantID: tenant, username: subject, subject: subject, passwordHash: "x"))
            }
            let tokens = try await auth.tokens.issueForSubject(
                issuer: "http://127.0.0.1:\(port)/t/\(tenant)", client: client, subject: subject,
                scope: (["openid"] + APIScope.hostApp).joined(separator: " "),
                dpopJKT: nil)
            minted.append((tokens.accessToken, subject))
        }
        return minted
    }
}

/// Consent changes for the PUT body.
func permissionUpdate(
    _ changes: [(String, Components.Schemas.ConsentStatus)]
) -> Operations.PutMiniAppPermissions.Input.Body {
    .json(.init(permissions: changes.map { .init(name: $0.0, status: $0.1) }))
}
