import Foundation
import Testing

@testable import GatewayCore
@testable import GatewayServer

/// The console's user page (issue 64) on both engines: found from the tenant page, the
/// passkeys listed without keys, one removed by a tenant admin (recorded with the operator as
/// actor); an auditor reads without remove buttons, and a form without the session's token
/// removes nothing.
@Suite("Operator console: a user's passkeys")
struct ConsoleUserTests {
    @Test(arguments: DatabaseBackend.available)
    func seeAndRemovePasskeys(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            let auth = admin.stores.auth
            try await auth.addUser(
                LocalUser(tenantID: "acme", username: "nina", subject: "sub-nina", name: "Nina <N>", passwordHash: "ph"))
            for byte: UInt8 in [1, 2] {
                try await auth.addPasskey(AdminUserPasskeyAPITests.passkey(byte, subject: "sub-nina"), trail: nil)
            }
            try await ConsoleTests.people(admin.stores, [("tad", .tenantAdmin, "acme"), ("aud", .auditor, "acme")])

            var tenantAdmin = ConsoleTests.Browser(admin: admin)
            _ = try await tenantAdmin.signIn("tad")
            let tenantPage = try await tenantAdmin.request(.GET, "/console/t/acme")
            #expect(tenantPage.body.contains(#"<form method="get" action="/console/t/acme/user">"#), "\(tenantPage.body)")
            let page = try await tenantAdmin.request(.GET, "/console/t/acme/user?username=nina")
            #expect(page.status == 200, "\(page.body)")
            #expect(page.body.contains("Nina &lt;N&gt;") && page.body.contains("<caption>Passkeys</caption>"))
            #expect(page.body.contains("<td>Phone 1</td>") && page.body.contains("<td>Phone 2</td>"))
            #expect(page.headers["Content-Security-Policy"].first?.hasPrefix("default-src 'none'") == true)
            let csrf = try #require(ConsoleTests.Browser.csrf(page.body))
            let first = Base64URL.encode([1, 7])
            #expect(page.body.contains(#"name="passkey" value="\#(first)""#))

            // A form without the session's token: refused, nothing removed.
            let forged = try await tenantAdmin.request(
                .POST, "/console/t/acme/user", form: "csrf_token=nope&username=nina&passkey=\(first)")
            #expect(forged.status == 403)
            #expect(try await auth.passkeys(tenantID: "acme", subject: "sub-nina").count == 2)
            let removed = try await tenantAdmin.request(
                .POST, "/console/t/acme/user", form: "csrf_token=\(csrf)&username=nina&passkey=\(first)")
            #expect(removed.status == 303, "\(removed.body)")
            #expect(removed.headers["Location"].first == "/console/t/acme/user?username=nina&done=removed")
            #expect(try await auth.passkeys(tenantID: "acme", subject: "sub-nina").map(\.name) == ["Phone 2"])
            let after = try await tenantAdmin.request(.GET, "/console/t/acme/user?username=nina&done=removed")
            #expect(after.body.contains("role=\"status\"") && !after.body.contains("<td>Phone 1</td>"))
            let again = try await tenantAdmin.request(
                .POST, "/console/t/acme/user", form: "csrf_token=\(csrf)&username=nina&passkey=\(first)")
            #expect(again.status == 404)
            let records = try await admin.stores.audit.records(matching: AuditQuery(chain: "acme", resourceType: .user)).items
            #expect(records.filter { $0.note?.action == "passkey.remove" }.map(\.actor.label) == ["operator:tad"])
            #expect(try await tenantAdmin.request(.GET, "/console/t/acme/user?username=nobody").status == 404)

            // An auditor reads the page, without remove buttons; a removal it forges is refused.
            var auditor = ConsoleTests.Browser(admin: admin)
            _ = try await auditor.signIn("aud")
            let read = try await auditor.request(.GET, "/console/t/acme/user?username=nina")
            #expect(read.status == 200 && read.body.contains("<td>Phone 2</td>") && !read.body.contains(#"name="passkey""#))
            let auditorCSRF = try #require(ConsoleTests.Browser.csrf(read.body))
            let refused = try await auditor.request(
                .POST, "/console/t/acme/user",
                form: "csrf_token=\(auditorCSRF)&username=nina&passkey=\(Base64URL.encode([2, 7]))")
            #expect(refused.status == 403)
            #expect(try await auth.passkeys(tenantID: "acme", subject: "sub-nina").count == 1)
        }
    }
}
