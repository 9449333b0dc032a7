import Foundation
import GatewayCore
import NIOHTTP1
import Testing

/// Tenants through the admin API (issue 48) on both engines: every config field by merge
/// patch (secrets written, never answered, masked in the trail), bad input refused with
/// stable codes and nothing written, creation once per Idempotency-Key, suspend and resume.
@Suite("Admin API tenants")
struct AdminTenantAPITests {
    static func text(_ reply: AdminAPITests.Reply) -> String {
        String(decoding: (try? JSONSerialization.data(withJSONObject: reply.json)) ?? Data(), as: UTF8.self)
    }

    @Test(arguments: DatabaseBackend.available)
    func everyFieldByMergePatch(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            try await admin.stores.tenants.update(id: "acme", actor: "t") { tenant in
                tenant.theme.logoURL = "https://acme.example/logo.png"
                tenant.featureFlags = ["old": true, "keep": false]
            }
            let read = try await admin.call(.GET, "/admin/v1/tenants/acme", token: admin.tokens["acme-admin"])
            let etag = try #require(read.headers["ETag"].first)
            let body = """
                {"displayName": "Acme 2",
                 "platform": {"projectID": "p-9", "subscriptionKey": "sk-very-secret-4242", "previewMode": true},
                 "provisioning": {"baseURL": "https://prov.acme.example", "apiKey": "pk-also-secret-7777"},
                 "storageMaxSizeInBytes": 5000, "cacheRules": {"maxCount": 7}, "theme": {"logoURL": "", "primaryColor": "#112233"},
                 "cacheTTLs": {"catalogSeconds": 30}, "hostApp": {"minimumVersion": "2.1"},
                 "featureFlags": {"beta": true}, "removeFeatureFlags": ["old"],
                 "ras": {"clientKey": "client-key-0123456789", "requireBearer": true},
                 "ciba": {"recentSignInSeconds": 90, "revealUnknownUsers": true},
                 "journeys": {"signUp": true, "identifiers": ["email", "username"], "verify": ["email"]},
                 "passkeys": {"rpId": "acme.example", "origins": ["https://shop.acme.example"]}}
                """
            let patched = try await admin.call(
                .PATCH, "/admin/v1/tenants/acme", token: admin.tokens["acme-admin"], body: body, headers: [("If-Match", etag)])
            #expect(patched.status == 200, "\(patched.json)")
            let platform = try #require(patched.json["platform"] as? [String: Any])
            #expect(platform["projectID"] as? String == "p-9" && platform["previewMode"] as? Bool == true)
            #expect((platform["subscriptionKey"] as? [String: Any])?["masked"] as? String != nil)
            #expect(patched.json["featureFlags"] as? [String: Bool] == ["beta": true, "keep": false])
            #expect((patched.json["theme"] as? [String: Any])?["logoURL"] == nil)
            #expect(patched.headers["ETag"].first != etag)
            for secret in ["sk-very-secret-4242", "pk-also-secret-7777", "client-key-0123456789"] {
                #expect(!Self.text(patched).contains(secret))
            }

            let stored = try #require(try await admin.stores.tenants.tenant(id: "acme"))
            #expect(stored.platform.subscriptionKey?.plaintext == "sk-very-secret-4242")
            #expect(stored.provisioning.apiKey?.plaintext == "pk-also-secret-7777")
            #expect(stored.storageMaxSizeInBytes == 5000 && stored.cacheRules.maxCount == 7 && stored.theme.logoURL == nil)
            #expect(stored.cacheTTLs.catalogSeconds == 30 && stored.hostApp.minimumVersion == "2.1")
            #expect(stored.ras.accepts("client-key-0123456789", now: Date()) && stored.ras.requireBearer)
            #expect(stored.ciba == CIBASettings(revealUnknownUsers: true, recentSignInSeconds: 90))
            let ciba = try #require(patched.json["ciba"] as? [String: Any])
            #expect(ciba["revealUnknownUsers"] as? Bool == true && ciba["recentSignInSeconds"] as? Int == 90)
            #expect(ciba["allowPrivateNotificationEndpoints"] as? Bool == false)
            #expect(
                stored.journeys
                    == JourneySettings(signUp: true, identifiers: [.email, .username], verify: [.email]))
            let journeys = try #require(patched.json["journeys"] as? [String: Any])
            #expect(journeys["factors"] as? [String] == ["password"] && journeys["codesPerIdentifierPerHour"] as? Int == 5)
            #expect(stored.passkeys == PasskeySettings(rpId: "acme.example", origins: ["https://shop.acme.example"]))
            let passkeys = try #require(patched.json["passkeys"] as? [String: Any])
            #expect(passkeys["rpId"] as? String == "acme.example")

            // The trail has the changed fields, before and after, secrets masked.
            let record = try #require(
                try await admin.stores.audit.records(matching: AuditQuery(chain: "acme", resourceType: .tenant, limit: 1)).items.first)
            #expect(record.actor.name == "acme-admin" && record.verb == .update && record.outcome.status == 200)
            guard case .object(let after) = record.change?.after, case .object(let before) = record.change?.before else {
                Issue.record("no change in \(record)")
                return
            }
            #expect(Set(after.keys) == ["displayName", "platform", "provisioning", "storageMaxSizeInBytes", "cacheRules",
                "theme", "cacheTTLs", "hostApp", "featureFlags", "ras", "ciba", "journeys", "passkeys"])
            #expect(before["displayName"] == "acme" && after["displayName"] == "Acme 2")
            let trail = String(decoding: try JSONEncoder().encode(record.change), as: UTF8.self)
            #expect(!trail.contains("sk-very-secret-4242") && !trail.contains("pk-also-secret-7777") && trail.contains("masked"))

            // An empty string clears a secret.
            let cleared = try await admin.call(
                .PATCH, "/admin/v1/tenants/acme", token: admin.tokens["root"], body: #"{"platform": {"subscriptionKey": ""}}"#)
            #expect(cleared.status == 200 && (cleared.json["platform"] as? [String: Any])?["subscriptionKey"] == nil)
        }
    }

    @Test(arguments: DatabaseBackend.available)
    func badPatchesWriteNothing(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            let before = try #require(try await admin.stores.tenants.tenant(id: "acme"))
            for (body, status, code) in [
                (#"{"platform": {"projectId": "p"}}"#, 400, "invalid_request"),
                (#"{"platform": {"projectID": null}}"#, 400, "invalid_request"),
                (#"{"storageMaxSizeInBytes": 0}"#, 422, "invalid_tenant"),
                (#"{"cacheTTLs": {"manifestSeconds": 604801}}"#, 422, "invalid_tenant"),
                (#"{"theme": {"primaryColor": "red"}}"#, 422, "invalid_tenant"),
                (#"{"platform": {"baseURL": "ftp://x"}}"#, 422, "invalid_tenant"),
                (#"{"featureFlags": {"Bad Name": true}}"#, 422, "invalid_tenant"),
                (#"{"featureFlags": {"x": true}, "removeFeatureFlags": ["x"]}"#, 422, "invalid_tenant"),
                (#"{"ras": {"clientKey": "short"}}"#, 422, "invalid_tenant"),
                (#"{"ras": {"clientKey": "client-key-0123456789", "clientKeyOverlapSeconds": -1}}"#, 422, "invalid_tenant"),
                (#"{"displayName": "Fine", "hostApp": {"updateURL": "http://insecure.example"}}"#, 422, "invalid_tenant"),
                (#"{"ciba": {"recentSignInSeconds": 29}}"#, 422, "invalid_tenant"),
                (#"{"ciba": {"revealUnknownUsers": "yes"}}"#, 400, "invalid_request"),
                (#"{"journeys": {"verify": ["phone"]}}"#, 422, "invalid_tenant"),
                (#"{"journeys": {"factors": ["sms-code"]}}"#, 422, "invalid_tenant"),
                (#"{"journeys": {"identifiers": ["fax"]}}"#, 400, "invalid_request"),
                (#"{"journeys": {"codesPerIdentifierPerHour": 0}}"#, 422, "invalid_tenant"),
                (#"{"journeys": {"signup": true}}"#, 400, "invalid_request"),
                (#"{"passkeys": {"rpId": "https://acme.example"}}"#, 422, "invalid_tenant"),
                (#"{"passkeys": {"origins": ["http://acme.example"]}}"#, 422, "invalid_tenant"),
                (#"{"passkeys": {"rpid": "acme.example"}}"#, 400, "invalid_request"),
            ] {
                let refused = try await admin.call(.PATCH, "/admin/v1/tenants/acme", token: admin.tokens["root"], body: body)
                #expect(refused.status == status && refused.json["code"] as? String == code, "\(body): \(refused.json)")
                if status == 422 { #expect((refused.json["detail"] as? String)?.isEmpty == false) }
            }
            // Past the contract's bounds is 400 before the revision is compared (not 412).
            let long = try await admin.call(
                .PATCH, "/admin/v1/tenants/acme", token: admin.tokens["root"],
                body: "{\"ras\": {\"clientKey\": \"\(String(repeating: "k", count: 129))\"}}", headers: [("If-Match", "\"99\"")])
            #expect(long.status == 400 && long.json["code"] as? String == "invalid_request", "\(long.json)")
            #expect(try await admin.stores.tenants.tenant(id: "acme") == before)
            // The rules' refusals are in the trail.
            let refusals = try await admin.stores.audit.records(
                matching: AuditQuery(chain: "acme", resourceType: .tenant, limit: 50)
            ).items.filter { $0.verb != .create }
            #expect(refusals.count == 15 && refusals.allSatisfy { $0.outcome.code == "invalid_tenant" && $0.change == nil })
        }
    }

    @Test(arguments: DatabaseBackend.available)
    func createOnceAndSuspend(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            let body = #"{"id": "gamma", "displayName": "Gamma", "platform": {"projectID": "g-1", "subscriptionKey": "sk-gamma-0001"}}"#
            let forbidden = try await admin.call(
                .POST, "/admin/v1/tenants", token: admin.tokens["acme-admin"], body: body, contentType: "application/json")
            #expect(forbidden.status == 403 && forbidden.json["missingPermission"] as? String == "tenant:create")

            let create = { (key: String?) in
                try await admin.call(
                    .POST, "/admin/v1/tenants", token: admin.tokens["root"], body: body,
                    headers: key.map { [("Idempotency-Key", $0)] } ?? [], contentType: "application/json")
            }
            let first = try await create("k-1")
            #expect(first.status == 201 && first.headers["ETag"].first == "\"1\"", "\(first.json)")
            #expect(first.json["configVersion"] as? Int == 1 && !Self.text(first).contains("sk-gamma-0001"))
            let again = try await create("k-1")
            #expect(again.status == 201 && again.headers["Idempotent-Replayed"].first == "true")
            #expect(again.json["createdAt"] as? String == first.json["createdAt"] as? String)
            let taken = try await create(nil)
            #expect(taken.status == 409 && taken.json["code"] as? String == "tenant_exists")
            for bad in [#"{"id": "Bad_Id", "displayName": "x"}"#, #"{"id": "delta", "displayName": "d", "storageMaxSizeInBytes": -1}"#] {
                let refused = try await admin.call(
                    .POST, "/admin/v1/tenants", token: admin.tokens["root"], body: bad, contentType: "application/json")
                #expect([400, 422].contains(refused.status) && refused.json["code"] != nil, "\(bad): \(refused.json)")
            }
            let ids = try await admin.stores.tenants.allTenants().map(\.id)
            #expect(ids.contains("gamma") && !ids.contains("delta") && !ids.contains("Bad_Id"), "\(ids)")
            let created = try await admin.stores.audit.records(
                matching: AuditQuery(chain: "gamma", resourceType: .tenant, verb: .create, limit: 5)).items
            #expect(created.count == 1 && created.first?.change?.before == nil && created.first?.resource.revisionAfter == 1)
            guard case .object(let after) = created.first?.change?.after else {
                Issue.record("no change")
                return
            }
            #expect(after["displayName"] == "Gamma" && after["id"] == "gamma")

            // Suspend and resume, each once; asking again writes nothing; a stale revision is refused.
            let action = { (name: String, headers: [(String, String)]) in
                try await admin.call(
                    .POST, "/admin/v1/tenants/gamma/actions", token: admin.tokens["root"], body: "{\"action\": \"\(name)\"}",
                    headers: headers, contentType: "application/json")
            }
            let suspended = try await action("suspend", [])
            #expect(suspended.status == 200 && suspended.json["status"] as? String == "suspended")
            #expect(try await action("suspend", []).headers["ETag"].first == suspended.headers["ETag"].first)
            #expect(try await action("resume", [("If-Match", "\"1\"")]).status == 412)
            let resumed = try await action("resume", [("If-Match", try #require(suspended.headers["ETag"].first))])
            #expect(resumed.status == 200 && resumed.json["status"] as? String == "active")
            let acts = try await admin.stores.audit.records(
                matching: AuditQuery(chain: "gamma", resourceType: .tenant, verb: .act, limit: 10)).items
            #expect(acts.map(\.outcome.status) == [200, 412, 200], "\(acts.map(\.outcome))")

            // Lists page and filter.
            _ = try await action("suspend", [])
            let (paged, pages) = try await admin.pages("/admin/v1/tenants?limit=2", key: "id", token: admin.tokens["root"])
            for page in pages {
                let count = (page.json["items"] as? [Any])?.count ?? 0
                #expect(count <= 2 && (page.json["next"] == nil || count == 2))
            }
            #expect(paged == ids, "\(paged)")
            let suspendedOnly = try await admin.call(.GET, "/admin/v1/tenants?status=suspended", token: admin.tokens["root"])
            #expect((suspendedOnly.json["items"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["gamma"])
        }
    }

    @Test(arguments: DatabaseBackend.available)
    func clientsWithoutTheirSecrets(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            let secret = ClientSecret.generate()
            try await admin.stores.auth.addClients(
                (1...3).map { n in
                    NewClient(
                        OAuthClient(tenantID: "acme", clientID: "c\(n)", confidential: n == 2, redirectURIs: ["https://a.example/\(n)"]),
                        secretHash: n == 2 ? secret.hash : nil)
                })
            let (ids, pages) = try await admin.pages(
                "/admin/v1/tenants/acme/clients?limit=2", key: "clientID", token: admin.tokens["acme-viewer"])
            for page in pages {
                #expect(page.status == 200 && !Self.text(page).contains(secret.hash) && !Self.text(page).contains(secret.secret))
            }
            #expect(ids == ["c1", "c2", "c3"])
            let one = try await admin.call(.GET, "/admin/v1/tenants/acme/clients/c2", token: admin.tokens["acme-viewer"])
            #expect(one.status == 200 && one.json["confidential"] as? Bool == true && one.json["redirectURIs"] as? [String] == ["https://a.example/2"])
            let missing = try await admin.call(.GET, "/admin/v1/tenants/acme/clients/nope", token: admin.tokens["acme-viewer"])
            #expect(missing.status == 404 && missing.json["code"] as? String == "client_not_found")
            let elsewhere = try await admin.call(.GET, "/admin/v1/tenants/beta/clients/c2", token: admin.tokens["acme-viewer"])
            #expect(elsewhere.status == 404 && elsewhere.json["code"] as? String == "tenant_not_found")
        }
    }

    @Test(arguments: DatabaseBackend.available)
    func clientWritesAtARevision(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            let token = admin.tokens["acme-admin"]
            let post = { (body: String) in
                try await admin.call(.POST, "/admin/v1/tenants/acme/clients", token: token, body: body, contentType: "application/json")
            }
            let created = try await post(#"{"clientID": "web", "confidential": true, "redirectURIs": ["https://acme.example/cb"]}"#)
            #expect(created.status == 201 && created.headers["ETag"].first == "\"1\"", "\(created.json)")
            let secret = try #require(created.json["clientSecret"] as? String)
            let hash = try #require(try await admin.stores.auth.clientSecretHash(tenantID: "acme", clientID: "web"))
            #expect(ClientSecret.verify(secret, hash: hash))
            #expect(try await post(#"{"clientID": "web", "redirectURIs": ["https://b.example/cb"]}"#).json["code"] as? String == "client_exists")
            let bad = try await post(#"{"clientID": "bad", "redirectURIs": ["not a url"]}"#)
            #expect(bad.status == 422 && bad.json["code"] as? String == "invalid_client_metadata", "\(bad.json)")
            #expect(try await post(#"{"clientID": "x", "redirectURIs": [""]}"#).status == 400)
            #expect(try await admin.call(
                .POST, "/admin/v1/tenants/acme/clients", token: admin.tokens["acme-viewer"], body: #"{"clientID": "v"}"#,
                contentType: "application/json").status == 403)

            // Two operators on revision 1: one 200, one 412; nothing lost.
            let path = "/admin/v1/tenants/acme/clients/web"
            async let first = admin.call(
                .PATCH, path, token: token, body: #"{"accessTokenLifetimeSeconds": 900}"#, headers: [("If-Match", "\"1\"")])
            async let second = admin.call(
                .PATCH, path, token: admin.tokens["root"], body: #"{"requirePAR": true}"#, headers: [("If-Match", "\"1\"")])
            let replies = try await [first, second]
            #expect(replies.map(\.status).sorted() == [200, 412], "\(replies.map(\.json))")
            let read = try await admin.call(.GET, path, token: admin.tokens["acme-viewer"])
            #expect(read.headers["ETag"].first == "\"2\"" && read.json["revision"] as? Int == 2)
            #expect(try await admin.call(.DELETE, path, token: token, headers: [("If-Match", "\"1\"")]).status == 412)
            #expect(try await admin.stores.auth.client(tenantID: "acme", clientID: "web") != nil)
            #expect(try await admin.call(.DELETE, path, token: token, headers: [("If-Match", "\"2\"")]).status == 204)
            #expect(try await admin.stores.auth.client(tenantID: "acme", clientID: "web") == nil)
            #expect(try await admin.call(.DELETE, path, token: token).json["code"] as? String == "client_not_found")

            // The trail: created (201), changed once (what changed), refused, removed (204); never the secret.
            let records = try await admin.stores.audit.records(
                matching: AuditQuery(chain: "acme", resourceType: .client, limit: 20)).items.reversed()
            #expect(records.map(\.outcome.status).sorted() == [200, 201, 204, 403, 409, 412, 412, 422], "\(records.map(\.outcome))")
            let change = try #require(records.first { $0.verb == .update && $0.outcome.status == 200 })
            #expect(change.resource.revisionBefore == 1 && change.resource.revisionAfter == 2)
            guard case .object(let after) = change.change?.after else {
                Issue.record("no change")
                return
            }
            #expect(after.count == 1)
            let removed = try #require(records.last)
            #expect(removed.verb == .delete && removed.change?.after == nil && removed.change?.before != nil)
            let text = String(decoding: try JSONEncoder().encode(Array(records)), as: UTF8.self)
            #expect(!text.contains(secret) && !text.contains(hash))
        }
    }
}
