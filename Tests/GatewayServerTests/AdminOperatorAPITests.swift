import Crypto
import Foundation
import GatewayCore
import NIOHTTP1
import Testing

/// Operators and role bindings through the admin API (issue 48) on both engines: a platform
/// admin creates a service account and binds roles that take effect on its next call; bad
/// input answers 4xx with stable codes and writes nothing; tenant-scoped readers see only
/// their tenants' operators.
@Suite("Admin API operators")
struct AdminOperatorAPITests {
    @Test(arguments: DatabaseBackend.available)
    func aServiceAccountWithKeysHasNoSecret(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            let root = admin.tokens["root"]
            let key = P256.Signing.PrivateKey()
            let jwk = String(decoding: try JSONValue.object(JWK.publicJWK(key.publicKey)).encoded(), as: UTF8.self)
            let created = try await admin.call(
                .POST, "/admin/v1/operators", token: root, body: #"{"name": "key-bot", "jwks": {"keys": ["# + jwk + "]}}",
                contentType: "application/json")
            #expect(created.status == 201 && created.json["clientSecret"] == nil, "\(created.json)")
            // The account signs in with an assertion, never a secret.
            let now = Date().timeIntervalSince1970.rounded(.down)
            let assertion = try JWS.sign(
                claims: [
                    "iss": "key-bot", "sub": "key-bot", "aud": .string("http://127.0.0.1:\(admin.port)/admin/oauth2/token"),
                    "exp": .number(now + 60), "jti": "one",
                ], typ: "JWT", kid: nil, key: key)
            let token = try await admin.call(
                .POST, "/admin/oauth2/token", token: nil,
                body: "grant_type=client_credentials&client_assertion_type=urn%3Aietf%3Aparams%3Aoauth%3Aclient-assertion-type%3Ajwt-bearer&client_assertion=\(assertion)",
                contentType: "application/x-www-form-urlencoded")
            #expect(token.status == 200, "\(token.json)")
            // A private key, or an empty set, is not a key set: 422, nothing written.
            let privateJWK = jwk.replacingOccurrences(of: "{", with: #"{"d": "AAAA", "#)
            for body in [#"{"name": "bad-bot", "jwks": {"keys": ["# + privateJWK + "]}}", #"{"name": "bad-bot", "jwks": {"keys": []}}"#] {
                let refused = try await admin.call(.POST, "/admin/v1/operators", token: root, body: body, contentType: "application/json")
                #expect(refused.status == 422 && refused.json["code"] as? String == "invalid_operator", "\(refused.json)")
            }
            #expect(try await admin.call(.GET, "/admin/v1/operators/bad-bot", token: root).status == 404)
        }
    }

    /// Disable (its tokens end at once), enable, a new secret (the old one and its tokens end),
    /// delete; never oneself; every change and refusal audited.
    @Test(arguments: DatabaseBackend.available)
    func disableRotateAndDelete(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            let root = admin.tokens["root"]
            let json = "application/json"
            let created = try await admin.call(
                .POST, "/admin/v1/operators", token: root, body: #"{"name": "ops-bot"}"#, contentType: json)
            let first = try #require(created.json["clientSecret"] as? String)
            let early = try #require(try await admin.token("ops-bot", first).json["access_token"] as? String)
            #expect(try await admin.call(.GET, "/admin/v1/me", token: early).status == 200)

            let disabled = try await admin.call(
                .PATCH, "/admin/v1/operators/ops-bot", token: root, body: #"{"disabled": true}"#)
            #expect(disabled.status == 200 && disabled.json["disabled"] as? Bool == true, "\(disabled.json)")
            #expect(try await admin.call(.GET, "/admin/v1/me", token: early).status == 401)
            #expect(try await admin.token("ops-bot", first).status == 401)
            let enabled = try await admin.call(
                .PATCH, "/admin/v1/operators/ops-bot", token: root, body: #"{"disabled": false}"#)
            #expect(enabled.status == 200 && enabled.json["disabled"] as? Bool == false)
            let again = try #require(try await admin.token("ops-bot", first).json["access_token"] as? String)

            let rotated = try await admin.call(.POST, "/admin/v1/operators/ops-bot/secret", token: root)
            let second = try #require(rotated.json["clientSecret"] as? String, "\(rotated.json)")
            #expect(rotated.status == 200 && second != first && rotated.json["clientId"] as? String == "ops-bot")
            #expect(try await admin.call(.GET, "/admin/v1/me", token: again).status == 401)
            #expect(try await admin.token("ops-bot", first).status == 401)
            #expect(try await admin.token("ops-bot", second).status == 200)

            // Refusals: not oneself, not without operator:act, not a stranger, not an unknown field.
            for (method, path, body, token, status, code) in [
                (HTTPMethod.PATCH, "/admin/v1/operators/root", #"{"disabled": true}"#, root, 422, "invalid_operator"),
                (.DELETE, "/admin/v1/operators/root", nil, root, 422, "invalid_operator"),
                (.PATCH, "/admin/v1/operators/ops-bot", #"{"disabled": true}"#, admin.tokens["acme-admin"], 403, "forbidden"),
                (.POST, "/admin/v1/operators/ops-bot/secret", nil, admin.tokens["acme-admin"], 403, "forbidden"),
                (.PATCH, "/admin/v1/operators/nobody", #"{"disabled": true}"#, root, 404, "operator_not_found"),
                (.PATCH, "/admin/v1/operators/ops-bot", #"{"disabled": true, "x": 1}"#, root, 400, "invalid_request"),
            ] as [(HTTPMethod, String, String?, String?, Int, String)] {
                let refused = try await admin.call(
                    method, path, token: token, body: body,
                    contentType: method == .PATCH ? "application/merge-patch+json" : json)
                #expect(refused.status == status && refused.json["code"] as? String == code, "\(path): \(refused.json)")
            }
            #expect(try await admin.call(.GET, "/admin/v1/me", token: root).status == 200)

            #expect(try await admin.call(.DELETE, "/admin/v1/operators/ops-bot", token: root).status == 204)
            #expect(try await admin.call(.GET, "/admin/v1/operators/ops-bot", token: root).status == 404)
            #expect(try await admin.call(.DELETE, "/admin/v1/operators/ops-bot", token: root).status == 404)
            #expect(try await admin.token("ops-bot", second).status == 401)

            let records = try await admin.stores.audit.records(
                matching: AuditQuery(chain: AuditChain.platform, resourceType: .operator, limit: 50)
            ).items
            let changes = records.filter { $0.outcome.status < 300 }.map(\.verb)
            #expect(Array(changes.prefix(5)) == [.delete, .act, .act, .act, .create], "\(changes)")
            #expect(records.contains { $0.outcome == AuditOutcome(status: 422, code: "invalid_operator") })
            #expect(records.allSatisfy { !(String(describing: $0.change)).contains(second) })
            #expect(try await AuditVerifier.verify(admin.stores.audit, chain: AuditChain.platform).broken == nil)
        }
    }

    @Test(arguments: DatabaseBackend.available)
    func createBindAndSee(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            let root = admin.tokens["root"]
            let created = try await admin.call(
                .POST, "/admin/v1/operators", token: root,
                body: #"{"name": "deploy-bot", "roles": [{"role": "release-manager", "tenant": "acme"}]}"#,
                contentType: "application/json")
            #expect(created.status == 201, "\(created.json)")
            let secret = try #require(created.json["clientSecret"] as? String)
            #expect((created.json["operator"] as? [String: Any])?["roles"] as? [String] == ["release-manager@acme"])
            let token = try #require(try await admin.token("deploy-bot", secret).json["access_token"] as? String)
            #expect(try await admin.call(.GET, "/admin/v1/tenants/beta", token: token).status == 404)

            let bound = try await admin.call(
                .POST, "/admin/v1/operators/deploy-bot/bindings", token: root, body: #"{"role": "viewer", "tenant": "beta"}"#,
                contentType: "application/json")
            #expect(bound.status == 200 && bound.json["roles"] as? [String] == ["release-manager@acme", "viewer@beta"])
            // The binding holds from the operator's next call, with the token it has.
            #expect(try await admin.call(.GET, "/admin/v1/tenants/beta", token: token).status == 200)
            let unbound = try await admin.call(
                .DELETE, "/admin/v1/operators/deploy-bot/bindings?role=viewer&tenant=beta", token: root)
            #expect(unbound.status == 200 && unbound.json["roles"] as? [String] == ["release-manager@acme"])
            #expect(try await admin.call(.GET, "/admin/v1/tenants/beta", token: token).status == 404)
            let again = try await admin.call(
                .DELETE, "/admin/v1/operators/deploy-bot/bindings?role=viewer&tenant=beta", token: root)
            #expect(again.status == 404 && again.json["code"] as? String == "binding_not_found")

            // A tenant admin sees its tenant's operators with their bindings there only.
            _ = try await OperatorService(operators: admin.stores.operators).create(
                name: "beta-bot", credential: .generatedSecret, roles: [(.viewer, "beta")], actor: .local(user: "test"))
            let names = try await admin.pages("/admin/v1/operators?limit=3", key: "name", token: admin.tokens["acme-admin"]).ids
            #expect(names == ["acme-admin", "acme-auditor", "acme-releaser", "acme-sender", "acme-viewer", "deploy-bot"])
            #expect(try await admin.call(.GET, "/admin/v1/operators/beta-bot", token: admin.tokens["acme-admin"]).status == 404)
            #expect(try await admin.call(.GET, "/admin/v1/operators/beta-bot", token: root).status == 200)
            let viewer = try await admin.call(.GET, "/admin/v1/operators", token: admin.tokens["acme-viewer"])
            #expect(viewer.status == 403 && viewer.json["missingPermission"] as? String == "operator:read")
        }
    }

    @Test(arguments: DatabaseBackend.available)
    func badInputWritesNothing(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            let root = admin.tokens["root"]
            let before = try await admin.stores.operators.allOperators().count
            for (path, body, status, code) in [
                ("/admin/v1/operators", #"{"name": "x-bot", "roles": [{"role": "emperor"}]}"#, 422, "invalid_binding"),
                ("/admin/v1/operators", #"{"name": "x-bot", "roles": [{"role": "viewer", "tenant": "nope"}]}"#, 422, "invalid_binding"),
                ("/admin/v1/operators", #"{"name": "x-bot", "roles": [{"role": "platform-admin", "tenant": "acme"}]}"#, 422, "invalid_binding"),
                ("/admin/v1/operators/acme-viewer/bindings", #"{"role": "platform-admin", "tenant": "acme"}"#, 422, "invalid_binding"),
                ("/admin/v1/operators", #"{"name": "Bad Name"}"#, 422, "invalid_operator"),
                ("/admin/v1/operators", #"{"name": "acme-viewer"}"#, 409, "operator_exists"),
                ("/admin/v1/operators", #"{"name": "x-bot", "password": "hunter22hunter22"}"#, 400, "invalid_request"),
                ("/admin/v1/operators", "{\"name\": \"\(String(repeating: "x", count: 64))\"}", 422, "invalid_operator"),
                ("/admin/v1/operators/acme-viewer/bindings", #"{"role": "emperor", "tenant": "acme"}"#, 422, "invalid_binding"),
                ("/admin/v1/operators/acme-viewer/bindings", #"{"role": "viewer", "tenant": "nope"}"#, 422, "invalid_binding"),
                ("/admin/v1/operators/acme-viewer/bindings", #"{"role": "viewer", "miniApps": ["hello"]}"#, 422, "invalid_binding"),
                ("/admin/v1/operators/nobody/bindings", #"{"role": "viewer"}"#, 404, "operator_not_found"),
            ] {
                let refused = try await admin.call(.POST, path, token: root, body: body, contentType: "application/json")
                #expect(refused.status == status && refused.json["code"] as? String == code, "\(body): \(refused.status) \(refused.json)")
            }
            #expect(try await admin.stores.operators.allOperators().count == before)
            let viewer = try #require(try await admin.stores.operators.findOperator(named: "acme-viewer"))
            #expect(try await admin.stores.operators.bindings(operatorID: viewer.id).map(\.label) == ["viewer@acme"])
            // Each refusal after authorization is in the trail (the unknown tenant's in the platform's chain).
            let refusals = try await admin.stores.audit.records(
                matching: AuditQuery(chain: AuditChain.platform, resourceType: .operator, limit: 50)
            ).items.filter { $0.outcome.status >= 400 }
            #expect(refusals.count >= 8, "\(refusals.map(\.outcome))")

            // The same binding listed twice is one binding (schemathesis found a 500 here).
            let twice = try await admin.call(
                .POST, "/admin/v1/operators", token: root,
                body: #"{"name": "twice-bot", "roles": [{"role": "viewer", "tenant": "acme"}, {"role": "viewer", "tenant": "acme"}]}"#,
                contentType: "application/json")
            #expect(twice.status == 201, "\(twice.json)")
            let bot = try #require(try await admin.stores.operators.findOperator(named: "twice-bot"))
            #expect(try await admin.stores.operators.bindings(operatorID: bot.id).map(\.label) == ["viewer@acme"])
        }
    }
}
