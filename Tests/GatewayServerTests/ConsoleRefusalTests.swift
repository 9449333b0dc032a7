import Foundation
import NIOHTTP1
import Testing

@testable import GatewayCore
@testable import GatewayServer

/// The console's smaller findings of issue 62 §3: refusals are pages in the operator's words
/// with every guard header, a forged one-field form is refused and recorded, the sign-in
/// callback says its own words, the audit filter takes an operator's name, no link leads to a
/// page the role cannot open, and the record page suggests a command that exists.
@Suite("Console refusals and links")
struct ConsoleRefusalTests {
    static func expectGuardHeaders(_ headers: HTTPHeaders, _ place: String) {
        #expect(headers["Content-Security-Policy"].first?.contains("default-src 'none'") == true, "\(place)")
        #expect(headers["Cache-Control"].first == "no-store", "\(place)")
        #expect(headers["X-Content-Type-Options"].first == "nosniff", "\(place)")
        #expect(headers["Referrer-Policy"].first == "no-referrer", "\(place)")
    }

    @Test(arguments: DatabaseBackend.available)
    func refusalsLinksAndWords(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            try await ConsoleTests.people(admin.stores, [("vic", .viewer, "acme"), ("carol", .auditor, "acme")])
            var vic = ConsoleTests.Browser(admin: admin)
            _ = try await vic.signIn("vic")
            let overview = try await vic.request(.GET, "/console")
            #expect(overview.status == 200)
            // A viewer holds no audit:read: no Audit link. An auditor of acme: acme's chain.
            #expect(!overview.body.contains("href=\"/console/audit"), "\(overview.body)")
            var carol = ConsoleTests.Browser(admin: admin)
            _ = try await carol.signIn("carol")
            let carols = try await carol.request(.GET, "/console")
            #expect(carols.body.contains("href=\"/console/audit?tenant=acme\""))
            #expect(try await carol.request(.GET, "/console/audit?tenant=acme").status == 200)

            // A refusal is a page in the operator's language, never a Swift value, with every
            // guard header; so is an unknown path of the console.
            let refused = try await vic.request(.GET, "/console/audit")
            #expect(refused.status == 403)
            #expect(refused.body.contains("Your roles do not allow this: it needs the audit:read permission."), "\(refused.body)")
            #expect(!refused.body.contains("forbidden(") && !refused.body.contains("missing:"))
            Self.expectGuardHeaders(refused.headers, "refusal")
            var japanese = vic
            japanese.language = "ja"
            let translated = try await japanese.request(.GET, "/console/audit", keep: false)
            #expect(translated.status == 403 && translated.body.contains("必要な権限: audit:read"), "\(translated.body)")
            for path in ["/console/nowhere", "/console/audit/999999", "/console/t/beta"] {
                let answer = try await vic.request(.GET, path, keep: false)
                #expect(answer.status >= 400, "\(path)")
                Self.expectGuardHeaders(answer.headers, path)
            }

            // A forged settings post with one field: 403 and recorded, as the whole form is.
            let csrf = try #require(ConsoleTests.Browser.csrf(overview.body))
            let revision = try #require(try await admin.stores.tenants.tenant(id: "acme")).configVersion
            let forged = try await vic.request(
                .POST, "/console/t/acme", form: "csrf_token=\(csrf)&revision=\(revision)&displayName=Pwned")
            #expect(forged.status == 403, "\(forged.status) \(forged.body)")
            Self.expectGuardHeaders(forged.headers, "forged post")
            #expect(try await admin.stores.tenants.tenant(id: "acme")?.displayName != "Pwned")
            let refusals = try await admin.stores.audit.records(
                matching: AuditQuery(chain: "acme", resourceType: .tenant, verb: .update, limit: 10)
            ).items.filter { $0.actor.name == "vic" && $0.outcome.status == 403 }
            #expect(refusals.count == 1)

            // The audit filter finds an operator by name (records name its id).
            let byName = try await carol.request(.GET, "/console/audit?tenant=acme&operator=vic")
            #expect(byName.status == 200 && byName.body.contains("<td>vic</td>"), "\(byName.body)")
            let record = try #require(refusals.first)
            let page = try await carol.request(.GET, "/console/audit/\(record.id)")
            #expect(page.status == 200 && page.body.contains("gatewayctl audit verify --tenant acme"), "\(page.body)")
            #expect(!page.body.contains("--chain"))

            // The callback's error page says the console's words, never the URL's description.
            var stranger = ConsoleTests.Browser(admin: admin)
            let planted = "Call+0800-FAKE-HELP+to+restore+access"
            let callback = try await stranger.request(
                .GET, "/console/callback?error=access_denied&error_description=\(planted)")
            #expect(callback.status == 400 && callback.body.contains("The sign-in was cancelled or refused."))
            #expect(!callback.body.contains("FAKE-HELP"), "\(callback.body)")
            Self.expectGuardHeaders(callback.headers, "callback")
            let other = try await stranger.request(.GET, "/console/callback?error=server_error&error_description=\(planted)")
            #expect(other.status == 400 && !other.body.contains("FAKE-HELP") && !other.body.contains("server_error"))
        }
    }

    @Test("the release chart's time labels follow the operator's zone; the last one ends at its point")
    func chartLabelsInTheOperatorsZone() {
        let start = Date(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15 08:00 UTC
        let points = (0..<12).map { index in
            ReleaseHealthSeries.Point(
                start: start.addingTimeInterval(Double(index) * 300),
                candidate: .init(opens: 10, failures: 0, users: 5), stable: .init(opens: 10, failures: 0, users: 5))
        }
        var texts = ConsoleTexts.negotiate([:])
        texts.timeZoneName = "Asia/Tokyo"
        let svg = ConsoleChart.releaseHealth(points, candidate: "v2", rule: nil, texts: texts)
        #expect(svg.contains(">17:00</text>") && svg.contains(">17:55</text>"), "\(svg)")
        #expect(!svg.contains(">08:00</text>"))
        #expect(svg.contains(#"text-anchor="end">17:55</text>"#) && svg.contains(#"text-anchor="start">17:00</text>"#))
    }
}
