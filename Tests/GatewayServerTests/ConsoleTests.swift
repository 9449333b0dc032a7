import AsyncHTTPClient
import Foundation
import GatewayCore
import NIOCore
import NIOHTTP1
import Testing

/// The operator console on the admin listener (issue 49), on real sockets and both engines:
/// sign-in through the operator realm's own page with the built-in `console` client, a
/// server-side session in an HttpOnly cookie, pages that show what the operator's roles let
/// it read, a strict Content-Security-Policy, and sign-out guarded by the session's CSRF token.
@Suite("Operator console")
struct ConsoleTests {
    /// A browser's cookie jar on the admin listener, without script.
    struct Browser {
        let admin: AdminAPITests.Admin
        var cookies: [String: String] = [:]
        /// The browser's `Accept-Language`.
        var language: String?

        mutating func request(
            _ method: HTTPMethod, _ path: String, form: String? = nil, keep: Bool = true
        ) async throws -> (status: Int, headers: HTTPHeaders, body: String) {
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(admin.port)\(path)")
            request.method = method
            if !cookies.isEmpty {
                request.headers.add(
                    name: "Cookie", value: cookies.map { "\($0)=\($1)" }.sorted().joined(separator: "; "))
            }
            if let language { request.headers.add(name: "Accept-Language", value: language) }
            if let form {
                request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
                request.body = .bytes(ByteBuffer(string: form))
            }
            let response = try await TestHTTP.noRedirects.execute(request, timeout: .seconds(30))
            let body = String(buffer: try await response.body.collect(upTo: 1 << 20))
            if keep {
                for set in response.headers["Set-Cookie"] {
                    let pair = set.prefix { $0 != ";" }.split(
                        separator: "=", maxSplits: 1, omittingEmptySubsequences: false
                    )
                    .map(String.init)
                    guard pair.count == 2 else { continue }
                    if set.contains("Max-Age=0") { cookies[pair[0]] = nil } else { cookies[pair[0]] = pair[1] }
                }
            }
            return (Int(response.status.code), response.headers, body)
        }

        /// Signs `name` in through `/console/sign-in` and the realm's page; answers the
        /// callback's location (kept for a replay).
        mutating func signIn(_ name: String, password: String = "correct horse battery") async throws -> String {
            let start = try await request(.GET, "/console/sign-in")
            #expect(start.status == 303 && cookies["gw-console-start"] != nil)
            let location = try #require(start.headers["Location"].first)
            #expect(location.hasPrefix("/admin/oauth2/authorize?") && location.contains("client_id=console"))
            var page = AdminOperatorSignInTests.Browser(admin: admin)
            page.givenQuery = String(location.dropFirst("/admin/oauth2/authorize?".count))
            let form = try await page.open()
            #expect(form.status == 200, "\(form.html)")
            let posted = try await page.post(csrf: form.csrf, username: name, password: password)
            let callback = try #require(posted.location, "\(posted.status) \(posted.html)")
            let origin = "http://127.0.0.1:\(admin.port)"
            #expect(callback.hasPrefix(origin + "/console/callback?"))
            let back = try await request(.GET, String(callback.dropFirst(origin.count)))
            #expect(back.status == 303 && back.headers["Location"].first == "/console", "\(back.body)")
            let setCookie = back.headers["Set-Cookie"].first { $0.hasPrefix("gw-console=") } ?? ""
            #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict"))
            return String(callback.dropFirst(origin.count))
        }

        /// The session's CSRF token, read from a page's sign-out form.
        static func csrf(_ html: String) -> String? {
            html.range(of: #"name="csrf_token" value="([^"]+)""#, options: .regularExpression).map {
                String(html[$0].dropFirst(#"name="csrf_token" value=""#.count).dropLast())
            }
        }
    }

    /// People who sign in with `password`, one role each (a nil tenant: platform-wide); the
    /// service, for what a test does to them next.
    @discardableResult
    static func people(
        _ stores: DurableStores, _ list: [(name: String, role: OperatorRole, tenant: String?)],
        password: String = "correct horse battery"
    ) async throws -> OperatorService {
        let service = OperatorService(operators: stores.operators, hasher: PasswordHasher(logN: 10))
        for person in list {
            _ = try await service.create(
                name: person.name, credential: .password(password), roles: [(person.role, person.tenant)],
                actor: .local(user: "test"))
        }
        return service
    }

    @Test(arguments: DatabaseBackend.available)
    func signInReadAndSignOut(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            try await Self.people(admin.stores, [("carol", .auditor, "acme")])
            var browser = Browser(admin: admin)
            let anonymous = try await browser.request(.GET, "/console")
            #expect(anonymous.status == 303 && anonymous.headers["Location"].first == "/console/sign-in")

            let callback = try await browser.signIn("carol")
            let overview = try await browser.request(.GET, "/console")
            #expect(overview.status == 200, "\(overview.body)")
            #expect(overview.body.contains("<td>acme</td>") && !overview.body.contains("<td>beta</td>"))
            #expect(overview.body.contains("auditor@acme") && overview.body.contains("<strong>carol</strong>"))
            let policy = try #require(overview.headers["Content-Security-Policy"].first)
            #expect(
                policy.contains("default-src 'none'") && policy.contains("style-src 'self'")
                    && !policy.contains("script"))
            #expect(!overview.body.contains("<script") && overview.headers["Cache-Control"].first == "no-store")

            // The audit table, filtered; another tenant's chain is refused, never shown.
            let audit = try await browser.request(.GET, "/console/audit?tenant=acme&resource=tenant")
            #expect(audit.status == 200 && audit.body.contains("<caption>Audit</caption>"), "\(audit.body)")
            #expect(audit.body.contains("<option value=\"tenant\" selected>"))
            #expect(try await browser.request(.GET, "/console/audit?tenant=beta").status == 403)
            #expect(try await browser.request(.GET, "/console/audit").status == 403)
            // Japanese when the browser asks first for it.
            var japanese = browser
            japanese.language = "ja-JP,ja;q=0.9,en;q=0.5"
            let translated = try await japanese.request(.GET, "/console", keep: false)
            #expect(translated.body.contains("<html lang=\"ja\">") && translated.body.contains("概要"))
            let css = try await browser.request(.GET, "/console/assets/console.css")
            #expect(css.status == 200 && css.body.contains("prefers-color-scheme:dark"))

            // The callback cannot be replayed, and a stranger's browser cannot finish it.
            var stranger = Browser(admin: admin)
            #expect(try await stranger.request(.GET, callback).status == 400)
            #expect(try await browser.request(.GET, callback, keep: false).status == 400)

            // Sign-out needs the session's token: a forged form ends nothing.
            let forged = try await browser.request(.POST, "/console/sign-out", form: "csrf_token=forged")
            #expect(forged.status == 403)
            #expect(try await browser.request(.GET, "/console").status == 200)
            let token = try #require(Browser.csrf(overview.body))
            let out = try await browser.request(.POST, "/console/sign-out", form: "csrf_token=\(token)")
            #expect(out.status == 303 && browser.cookies["gw-console"] == nil)
            // The old cookie names no session any more.
            #expect(try await japanese.request(.GET, "/console").status == 303)
        }
    }

    /// Times in the operator's zone, UTC on hover; the zone kept in this browser by a form.
    @Test func timesInTheOperatorsZone() async throws {
        try await AdminAPITests.withAdmin(backend: .sqlite) { admin in
            try await Self.people(admin.stores, [("zoe", .auditor, "acme")])
            var browser = Browser(admin: admin)
            _ = try await browser.signIn("zoe")
            let overview = try await browser.request(.GET, "/console")
            #expect(overview.body.contains("<option selected>UTC</option>"))
            let csrf = try #require(Browser.csrf(overview.body))
            let utc = try await browser.request(.GET, "/console/audit?tenant=acme")
            #expect(utc.body.contains(" UTC</time>") && !utc.body.contains("title=\""), "\(utc.body)")

            #expect(
                try await browser.request(
                    .POST, "/console/preferences", form: "csrf_token=x&time_zone=Asia%2FTokyo"
                ).status == 403)
            #expect(
                try await browser.request(
                    .POST, "/console/preferences", form: "csrf_token=\(csrf)&time_zone=Mars%2FOlympus"
                ).status == 400)
            let saved = try await browser.request(
                .POST, "/console/preferences", form: "csrf_token=\(csrf)&time_zone=Asia%2FTokyo")
            #expect(saved.status == 303 && browser.cookies["gw-console-tz"] == "Asia/Tokyo")
            let tokyo = try await browser.request(.GET, "/console/audit?tenant=acme")
            let shown = try #require(
                tokyo.body.range(of: #"<time datetime="[^"]+" title="[^"]+ UTC">[^<]+</time>"#, options: .regularExpression)
            )
            #expect(tokyo.body[shown].contains("GMT+9") || tokyo.body[shown].contains("JST"), "\(tokyo.body[shown])")
            #expect(try await browser.request(.GET, "/console").body.contains("<option selected>Asia/Tokyo</option>"))
        }
    }

    /// A disabled operator's console session ends on its next page, whatever the cookie says.
    @Test(arguments: DatabaseBackend.available)
    func aDisabledOperatorsSessionEnds(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            let service = try await Self.people(admin.stores, [("dave", .platformAdmin, nil)])
            var browser = Browser(admin: admin)
            _ = try await browser.signIn("dave")
            let page = try await browser.request(.GET, "/console", keep: false)
            #expect(page.status == 200 && page.body.contains("<td>beta</td>"))
            _ = try await service.setDisabled(name: "dave", disabled: true, actor: .local(user: "t"))
            #expect(try await browser.request(.GET, "/console").status == 303)
        }
    }
}
