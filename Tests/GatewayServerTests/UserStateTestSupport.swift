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
}

/// Consent changes for the PUT body.
func permissionUpdate(
    _ changes: [(String, Components.Schemas.ConsentStatus)]
) -> Operations.PutMiniAppPermissions.Input.Body {
    .json(.init(permissions: changes.map { .init(name: $0.0, status: $0.1) }))
}
