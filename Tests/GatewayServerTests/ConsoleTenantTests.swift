import Foundation
import Testing

@testable import GatewayCore
@testable import GatewayServer

/// The console's tenant page (issue 49) on both engines: the settings with secrets masked,
/// and each section shown only to roles that may read it, with no refusal left in the trail.
@Suite("Operator console: tenant page")
struct ConsoleTenantTests {
    @Test(arguments: DatabaseBackend.available)
    func sectionsFollowTheRoles(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            var gamma = Tenant(id: "gamma", displayName: "Gamma <Co>")
            gamma.platform.subscriptionKey = SecretValue("sk-live-do-not-show-0123456789")
            _ = try await admin.stores.tenants.create(gamma, actor: "t")
            var desk = OAuthClient(tenantID: "gamma", clientID: "desk", confidential: true, redirectURIs: [])
            desk.grantTypes = [BackchannelRules.grantType]
            (desk.backchannelMode, desk.backchannelNotificationEndpoint) = (.ping, "https://desk.example/ciba")
            desk.backchannelUserCodeRequired = true
            try await admin.stores.auth.addClients([NewClient(desk, secretHash: ClientSecret.generate().hash)])
            try await admin.stores.courier.enqueue(
                CourierMessage(
                    tenantID: "gamma", id: "cm_console", channel: .email, purpose: "verify-email",
                    to: "mika@acme.example", subject: "Your code", text: "Your code is 123456.", createdAt: Date(),
                    expiresAt: Date().addingTimeInterval(600)))
            try await ConsoleTests.people(
                admin.stores, [("tad", .tenantAdmin, "gamma"), ("rel", .releaseManager, "gamma")])
            var tenantAdmin = ConsoleTests.Browser(admin: admin)
            _ = try await tenantAdmin.signIn("tad")
            let overview = try await tenantAdmin.request(.GET, "/console")
            #expect(overview.body.contains("<a href=\"/console/t/gamma\">gamma</a>"), "\(overview.body)")
            let page = try await tenantAdmin.request(.GET, "/console/t/gamma")
            #expect(page.status == 200, "\(page.body)")
            #expect(page.body.contains("<code>platform.subscriptionKey</code>"))
            #expect(!page.body.contains("sk-live-do-not-show") && page.body.contains("Gamma &lt;Co&gt;"))
            #expect(page.body.contains("<caption>OAuth clients</caption>"))
            #expect(page.body.contains("<td>ciba (ping → https://desk.example/ciba, user_code)</td>"), "\(page.body)")
            #expect(
                page.body.contains("<caption>Role bindings</caption>") && page.body.contains("<td>tenant-admin</td>"))
            // The courier's latest messages: the recipient masked, never the text or its code.
            #expect(page.body.contains("<caption>Courier: the latest e-mail and SMS</caption>"), "\(page.body)")
            // (Pending, or already failed by the delivery loop: gamma has no relay.)
            #expect(page.body.contains("<td>email</td><td>verify-email</td><td>m…@acme.example</td>"), "\(page.body)")
            #expect(!page.body.contains("mika@acme.example") && !page.body.contains("123456"))

            var releaser = ConsoleTests.Browser(admin: admin)
            _ = try await releaser.signIn("rel")
            let before = try await admin.stores.audit.records(matching: AuditQuery(chain: "gamma", limit: 200)).items
            let limited = try await releaser.request(.GET, "/console/t/gamma")
            #expect(limited.status == 200 && !limited.body.contains("<caption>OAuth clients</caption>"))
            #expect(limited.body.contains("Your roles do not let you read this here."))
            let after = try await admin.stores.audit.records(matching: AuditQuery(chain: "gamma", limit: 200)).items
            #expect(after.filter { $0.outcome.status == 403 }.count == before.filter { $0.outcome.status == 403 }.count)
            #expect(try await releaser.request(.GET, "/console/t/acme").status == 404)
            #expect(try await releaser.request(.GET, "/console/t/NOT_VALID").status == 400)
        }
    }

    /// One record's page: the change as a diff, whether it holds, and who may read it.
    @Test(arguments: DatabaseBackend.available)
    func anAuditRecordWithItsDiff(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            try await ConsoleTests.people(admin.stores, [("tad", .tenantAdmin, "acme"), ("aud", .auditor, "beta")])
            let patched = try await admin.call(
                .PATCH, "/admin/v1/tenants/acme", token: admin.tokens["acme-admin"],
                body: #"{"displayName": "Acme <Ltd>"}"#)
            #expect(patched.status == 200, "\(patched.json)")
            let record = try #require(
                try await admin.stores.audit.records(
                    matching: AuditQuery(chain: "acme", resourceType: .tenant, verb: .update, limit: 1)
                ).items.first)
            var reader = ConsoleTests.Browser(admin: admin)
            _ = try await reader.signIn("tad")
            let list = try await reader.request(.GET, "/console/audit?tenant=acme")
            #expect(list.body.contains("<a href=\"/console/audit/\(record.id)\">"), "\(list.body)")
            let page = try await reader.request(.GET, "/console/audit/\(record.id)")
            #expect(page.status == 200, "\(page.body)")
            #expect(
                page.body.contains(
                    "<td><code>displayName</code></td><td><del>acme</del></td><td><ins>Acme &lt;Ltd&gt;</ins></td>"),
                "\(page.body)")
            #expect(page.body.contains("This record holds in chain acme") && page.body.contains("operator:acme-admin"))
            #expect(try await reader.request(.GET, "/console/audit/999999").status == 404)
            #expect(try await reader.request(.GET, "/console/audit/0").status == 400)
            // An auditor of another tenant: the record's tenant is not found for it.
            var stranger = ConsoleTests.Browser(admin: admin)
            _ = try await stranger.signIn("aud")
            #expect(try await stranger.request(.GET, "/console/audit/\(record.id)").status == 404)
        }
    }

    /// The overview reads a large platform as pages of 50 tenants, with their rollouts.
    @Test func theOverviewPagesTenants() async throws {
        try await AdminAPITests.withAdmin(backend: .sqlite) { admin in
            for n in 0..<60 {
                _ = try await admin.stores.tenants.create(
                    Tenant(id: String(format: "p%02d", n), displayName: "P \(n)"), actor: "t")
            }
            _ = try await admin.stores.releases.save(
                ReleasePolicy(tenantID: "p55", miniAppID: "hello", stable: "1.0"),
                entry: ReleaseHistoryEntry(at: Date(), actor: "t", action: .set, summary: "set"))
            try await ConsoleTests.people(admin.stores, [("pam", .platformAdmin, nil)])
            var browser = ConsoleTests.Browser(admin: admin)
            _ = try await browser.signIn("pam")
            let first = try await browser.request(.GET, "/console")
            let tenantLink = try Regex(#"<a href="/console/t/[a-z0-9-]+">"#)
            let listed = { (body: String) in body.matches(of: tenantLink).count }
            #expect(listed(first.body) == 50 && first.body.contains("<a href=\"/console?cursor="), "\(first.body)")
            #expect(!first.body.contains("/console/t/p55/miniapps/hello/release"))
            let next = try #require(
                first.body.range(of: #"/console\?cursor=[^"]+"#, options: .regularExpression).map {
                    String(first.body[$0])
                })
            let second = try await browser.request(.GET, next)
            // acme, beta and p00-p59 are 62 tenants: 12 on the second page, p55's rollout among them.
            #expect(second.body.contains("<a href=\"/console/t/p59\">") && !second.body.contains("?cursor="))
            #expect(second.body.contains("/console/t/p55/miniapps/hello/release"))
        }
    }

    /// The configuration form: each field beside its problem, nothing written when any is
    /// refused, a secret never shown and kept when left empty, a stale page told who changed
    /// the tenant, and an operator without `tenant:update` refused and recorded.
    @Test(arguments: DatabaseBackend.available)
    func theConfigurationForm(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            var gamma = Tenant(id: "gamma", displayName: "Gamma")
            gamma.platform.subscriptionKey = SecretValue("sk-live-do-not-show-0123456789")
            _ = try await admin.stores.tenants.create(gamma, actor: "t")
            var desk = OAuthClient(tenantID: "gamma", clientID: "desk", confidential: true, redirectURIs: [])
            desk.grantTypes = [BackchannelRules.grantType]
            (desk.backchannelMode, desk.backchannelNotificationEndpoint) = (.ping, "https://desk.example/ciba")
            desk.backchannelUserCodeRequired = true
            try await admin.stores.auth.addClients([NewClient(desk, secretHash: ClientSecret.generate().hash)])
            try await admin.stores.courier.enqueue(
                CourierMessage(
                    tenantID: "gamma", id: "cm_console", channel: .email, purpose: "verify-email",
                    to: "mika@acme.example", subject: "Your code", text: "Your code is 123456.", createdAt: Date(),
                    expiresAt: Date().addingTimeInterval(600)))
            try await ConsoleTests.people(
                admin.stores, [("tad", .tenantAdmin, "gamma"), ("rel", .releaseManager, "gamma")])
            var tad = ConsoleTests.Browser(admin: admin)
            _ = try await tad.signIn("tad")
            let page = try await tad.request(.GET, "/console/t/gamma")
            #expect(page.body.contains("<form method=\"post\" action=\"/console/t/gamma\" class=\"settings\">"))
            #expect(page.body.contains("<input type=\"password\" name=\"platform_subscriptionKey\""))
            #expect(!page.body.contains("sk-live-do-not-show"))
            let csrf = try #require(ConsoleTests.Browser.csrf(page.body))
            func form(
                _ tenant: Tenant, revision: Int64? = nil, token: String? = nil, _ changes: [String: String]
            ) -> String {
                var fields = ["csrf_token": token ?? csrf, "revision": String(revision ?? tenant.configVersion)]
                for (field, kind) in ConsoleTenantSettingsForm.fields where kind != .secret {
                    let value = field.plainValue(in: tenant) ?? ""
                    if kind == .checkbox {
                        if value == "true" { fields[ConsoleTenantSettingsForm.name(field)] = "on" }
                    } else {
                        fields[ConsoleTenantSettingsForm.name(field)] = value
                    }
                }
                fields.merge(changes) { $1 }
                return fields.map { "\($0)=\(URLQuery.encode($1))" }.joined(separator: "&")
            }
            let stored = { try #require(try await admin.stores.tenants.tenant(id: "gamma")) }
            let start = try await stored()

            // Two refused values: both shown beside their fields, the posted text kept, nothing written.
            let refused = try await tad.request(
                .POST, "/console/t/gamma",
                form: form(
                    start, ["cacheTTLs_manifestSeconds": "0", "theme_primaryColor": "blue", "displayName": "G2"]))
            #expect(refused.status == 422, "\(refused.body)")
            #expect(refused.body.contains("aria-describedby=\"problem-cacheTTLs_manifestSeconds\""))
            #expect(refused.body.contains("id=\"problem-theme_primaryColor\">must be a colour like #RRGGBB"))
            #expect(refused.body.contains("name=\"displayName\" value=\"G2\""))
            #expect(try await stored().configVersion == start.configVersion)
            let unreadable = try await tad.request(
                .POST, "/console/t/gamma", form: form(start, ["storageMaxSizeInBytes": "lots"]))
            #expect(unreadable.status == 422 && unreadable.body.contains("must be a whole number"))
            let tooLong = try await tad.request(
                .POST, "/console/t/gamma", form: form(start, ["theme_primaryColor": "#0000000"]))
            #expect(tooLong.status == 400 && tooLong.body.contains("theme_primaryColor is 0-7 characters"))

            // A change saved: only what differs, the secret kept.
            let saved = try await tad.request(
                .POST, "/console/t/gamma", form: form(start, ["cacheTTLs_manifestSeconds": "600"]))
            #expect(saved.status == 303 && saved.headers["Location"].first == "/console/t/gamma?done=saved")
            let after = try await stored()
            #expect(after.cacheTTLs.manifestSeconds == 600 && after.configVersion == start.configVersion + 1)
            #expect(after.platform.subscriptionKey?.plaintext == "sk-live-do-not-show-0123456789")
            let record = try #require(
                try await admin.stores.audit.records(
                    matching: AuditQuery(chain: "gamma", resourceType: .tenant, verb: .update, limit: 1)
                ).items.first)
            #expect(record.actor.name == "tad" && record.outcome.status == 200, "\(record)")
            #expect(try await tad.request(.GET, "/console/t/gamma?done=saved").body.contains("role=\"status\""))

            // A new secret replaces the old one and is never shown.
            let secret = try await tad.request(
                .POST, "/console/t/gamma", form: form(after, ["platform_subscriptionKey": "sk-new-secret-abcdefghij"]))
            #expect(secret.status == 303)
            #expect(try await stored().platform.subscriptionKey?.plaintext == "sk-new-secret-abcdefghij")
            #expect(!(try await tad.request(.GET, "/console/t/gamma").body.contains("sk-new-secret")))

            // The page tad saw before those changes: refused with who changed it.
            let stale = try await tad.request(
                .POST, "/console/t/gamma", form: form(start, ["cacheTTLs_manifestSeconds": "900"]))
            #expect(stale.status == 412 && stale.body.contains("changed by tad at"), "\(stale.body)")
            #expect(try await stored().cacheTTLs.manifestSeconds == 600)
            let same = try await tad.request(.POST, "/console/t/gamma", form: form(try await stored(), [:]))
            #expect(same.status == 200 && same.body.contains("Nothing differs"))

            // Without tenant:update: no form, and a forged post is refused and recorded.
            var rel = ConsoleTests.Browser(admin: admin)
            _ = try await rel.signIn("rel")
            let relPage = try await rel.request(.GET, "/console/t/gamma")
            #expect(!relPage.body.contains("class=\"settings\""))
            let relCSRF = try #require(ConsoleTests.Browser.csrf(relPage.body))
            let current = try await stored()
            let forged = try await rel.request(
                .POST, "/console/t/gamma", form: form(current, token: relCSRF, ["displayName": "Owned"]))
            #expect(forged.status == 403, "\(forged.body)")
            let refusal = try #require(
                try await admin.stores.audit.records(
                    matching: AuditQuery(chain: "gamma", resourceType: .tenant, limit: 1)
                ).items.first)
            #expect(refusal.actor.name == "rel" && refusal.outcome.status == 403)
            #expect(try await stored().displayName == "Gamma")
            let notMine = try await tad.request(
                .POST, "/console/t/gamma", form: form(current, token: "forged", ["displayName": "Owned"]))
            let unchanged = try await stored()
            #expect(notMine.status == 403 && unchanged.displayName == "Gamma")
        }
    }
}
