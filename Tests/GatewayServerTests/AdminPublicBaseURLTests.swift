import AsyncHTTPClient
import Foundation
import GatewayCore
import Testing

@testable import GatewayServer

/// `admin.public.base.url`: the operator realm behind a TLS proxy names its https address,
/// whatever Host a request arrives with.
@Suite("Admin listener behind a proxy")
struct AdminPublicBaseURLTests {
    @Test("the realm's discovery and sign-in cookie follow the configured https address, not the request's Host")
    func configuredAddress() async throws {
        try await GatewayHarness.withGateway(useRedis: false, backend: .sqlite) { harness, _, _ in
            let stores = harness.bootstrap.stores
            try await AdminAPITests.withAdminListener(stores: stores, publicBaseURL: "https://admin.example.test/") {
                port, _ in
                let admin = AdminAPITests.Admin(port: port, stores: stores)
                let metadata = try await admin.call(
                    .GET, "/admin/.well-known/openid-configuration", token: nil,
                    headers: [("Host", "attacker.example")])
                #expect(metadata.json["issuer"] as? String == "https://admin.example.test/admin", "\(metadata.json)")
                #expect(metadata.json["token_endpoint"] as? String == "https://admin.example.test/admin/oauth2/token")
                let page = try await admin.call(
                    .GET,
                    "/admin/oauth2/authorize?response_type=code&client_id=gatewayctl&redirect_uri="
                        + "http%3A%2F%2F127.0.0.1%3A4000%2Fcallback&state=s&code_challenge="
                        + PKCE.challenge(for: Base64URL.random(byteCount: 32)) + "&code_challenge_method=S256",
                    token: nil)
                #expect(page.status == 200)
                let cookie = try #require(page.headers["Set-Cookie"].first)
                #expect(cookie.hasPrefix("__Host-gw-admin-csrf=") && cookie.contains("Secure"), "\(cookie)")
            }
            // Without it, the realm follows the Host over http (a listener on loopback, for development).
            try await AdminAPITests.withAdminListener(stores: stores) { port, _ in
                let admin = AdminAPITests.Admin(port: port, stores: stores)
                let metadata = try await admin.call(.GET, "/admin/.well-known/openid-configuration", token: nil)
                #expect(metadata.json["issuer"] as? String == "http://127.0.0.1:\(port)/admin")
            }
        }
    }
}
