import Foundation
import GatewayCore
import Testing

@Suite("Third-party client: Python authlib")
struct AuthlibInteropTests {
    static var authlibAvailable: Bool { PythonScript.canImport("authlib, requests") }

    @Test(
        "authlib OAuth2Session: PKCE login, token, API call, refresh, revocation",
        .enabled(
            if: authlibAvailable,
            "python3 with authlib and requests is not installed (pip install -r scripts/test-requirements.txt)"))
    func authlib() async throws {
        try await GatewayHarness.withGateway { harness, client, port in
            var kit = OAuthTestKit(harness: harness, client: client, port: port)
            kit.clientID = "authlib-" + UUID().uuidString.prefix(6).lowercased()
            // A third party the operator let call `/v1/me` (the `host` scope): the user consents.
            try await kit.setUp {
                $0.firstParty = false
                $0.defaultScopes = APIScope.identity + [APIScope.host]
            }
            let (status, output) = try await PythonScript.run(
                "authlib_pkce.py",
                [kit.base, "demo", kit.clientID, "http://127.0.0.1:43210/callback", kit.username, kit.password])
            #expect(status == 0, "\(output)")
            #expect(output.contains("ok consent_required") && output.contains("ok revoke"), "\(output)")
        }
    }
}
