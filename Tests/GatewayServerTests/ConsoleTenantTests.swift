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
            #expect(
                page.body.contains("<caption>Role bindings</caption>") && page.body.contains("<td>tenant-admin</td>"))

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
}
