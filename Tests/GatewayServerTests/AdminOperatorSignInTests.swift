import AsyncHTTPClient
import Foundation
import GatewayCore
import GatewayServer
import NIOCore
import NIOHTTP1
import Testing

/// People signing in to the operator realm (issue 48) on real sockets, on both engines: the
/// sign-in page, authorization code with PKCE for the built-in `gatewayctl` client and its
/// loopback redirect, TOTP, refresh-token rotation, and every refusal.
@Suite("Operator realm sign-in")
struct AdminOperatorSignInTests {
    /// A browser of one cookie, acting on the admin listener's sign-in page.
    struct Browser {
        let admin: AdminAPITests.Admin
        var cookie: String?
        let verifier = Base64URL.random(byteCount: 32)
        let state = "st-" + Base64URL.random(byteCount: 8)
        var redirectURI = "http://127.0.0.1:53124/callback"
        /// The query of an authorization URL someone else built (gatewayctl login's).
        var givenQuery: String?

        var query: String {
            givenQuery
                ?? [
                    ("response_type", "code"), ("client_id", "gatewayctl"), ("redirect_uri", redirectURI),
                    ("state", state),
                    ("code_challenge", PKCE.challenge(for: verifier)), ("code_challenge_method", "S256"),
                ].map { "\($0)=\(Self.encode($1))" }.joined(separator: "&")
        }

        static func encode(_ value: String) -> String {
            value.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(.init(charactersIn: "-._~")))
                ?? value
        }

        /// GETs the page; keeps its cookie; answers the status, the page and its CSRF token.
        mutating func open(_ query: String? = nil) async throws -> (status: Int, html: String, csrf: String?) {
            let reply = try await raw(.GET, "/admin/oauth2/authorize?" + (query ?? self.query), body: nil)
            if let set = reply.headers["Set-Cookie"].first { cookie = String(set.prefix { $0 != ";" }) }
            let csrf = reply.body.range(of: #"name="csrf_token" value="([^"]+)""#, options: .regularExpression).map {
                String(reply.body[$0].dropFirst(#"name="csrf_token" value=""#.count).dropLast())
            }
            return (reply.status, reply.body, csrf)
        }

        /// Posts the form (the page's hidden fields plus these).
        func post(
            csrf: String?, username: String, password: String, otp: String? = nil
        ) async throws
            -> (status: Int, location: String?, html: String, headers: HTTPHeaders)
        {
            var form = query + "&username=\(Self.encode(username))&password=\(Self.encode(password))"
            if let csrf { form += "&csrf_token=\(Self.encode(csrf))" }
            if let otp { form += "&otp=\(otp)" }
            let reply = try await raw(.POST, "/admin/oauth2/authorize", body: form)
            return (reply.status, reply.headers["Location"].first, reply.body, reply.headers)
        }

        func raw(
            _ method: HTTPMethod, _ path: String, body: String?
        ) async throws
            -> (status: Int, headers: HTTPHeaders, body: String)
        {
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(admin.port)\(path)")
            request.method = method
            if let cookie { request.headers.add(name: "Cookie", value: cookie) }
            if let body {
                request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
                request.body = .bytes(ByteBuffer(string: body))
            }
            let response = try await TestHTTP.noRedirects.execute(request, timeout: .seconds(30))
            let bytes = try await response.body.collect(upTo: 1 << 20)
            return (Int(response.status.code), response.headers, String(buffer: bytes))
        }

        /// The `code` of a redirect `location`, after checking its state and issuer.
        func code(_ location: String?) throws -> String {
            let items = URLComponents(string: try #require(location))?.queryItems ?? []
            #expect(items.first { $0.name == "state" }?.value == state)
            #expect(items.first { $0.name == "iss" }?.value == "http://127.0.0.1:\(admin.port)/admin")
            return try #require(items.first { $0.name == "code" }?.value, "\(location ?? "")")
        }

        func exchange(_ code: String, verifier: String? = nil) async throws -> AdminAPITests.Reply {
            try await admin.call(
                .POST, "/admin/oauth2/token", token: nil,
                body: "grant_type=authorization_code&client_id=gatewayctl&code=\(Self.encode(code))"
                    + "&code_verifier=\(verifier ?? self.verifier)&redirect_uri=\(Self.encode(redirectURI))",
                contentType: "application/x-www-form-urlencoded")
        }
    }

    static func person(
        _ admin: AdminAPITests.Admin, _ name: String = "alice", totp: Bool = false
    ) async throws -> String? {
        let service = OperatorService(operators: admin.stores.operators, hasher: PasswordHasher(logN: 10))
        _ = try await service.create(
            name: name, credential: .password("correct horse battery"), roles: [(.tenantAdmin, "acme")],
            actor: .local(user: "t"))
        return totp ? try await service.setSecondFactor(name: name, enrol: true, actor: .local(user: "t")) : nil
    }

    static func refresh(_ admin: AdminAPITests.Admin, _ token: String) async throws -> AdminAPITests.Reply {
        try await admin.call(
            .POST, "/admin/oauth2/token", token: nil,
            body: "grant_type=refresh_token&client_id=gatewayctl&refresh_token=\(token)",
            contentType: "application/x-www-form-urlencoded")
    }

    @Test(arguments: DatabaseBackend.available)
    func signInWithPKCEThenRefreshRotates(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            _ = try await Self.person(admin)
            let metadata = try await admin.call(.GET, "/admin/.well-known/openid-configuration", token: nil)
            #expect(metadata.json["token_endpoint"] as? String == "http://127.0.0.1:\(admin.port)/admin/oauth2/token")
            #expect(metadata.json["code_challenge_methods_supported"] as? [String] == ["S256"])

            var browser = Browser(admin: admin)
            let page = try await browser.open()
            #expect(page.status == 200 && page.html.contains("name=\"otp\""))
            #expect(browser.cookie?.hasPrefix("gw-admin-csrf=") == true)
            // Without the cookie's token the form is refused, nothing checked.
            #expect(
                try await browser.post(csrf: "forged", username: "alice", password: "correct horse battery").status
                    == 403)
            let wrong = try await browser.post(csrf: page.csrf, username: "alice", password: "wrong password")
            #expect(wrong.status == 401 && wrong.html.contains("The name or password is wrong."))
            // A service account cannot use the page, and gets the same answer as a wrong password.
            let robot = try await browser.post(csrf: page.csrf, username: "root", password: "anything at all")
            #expect(robot.status == 401 && robot.html.contains("The name or password is wrong."))

            let signedIn = try await browser.post(csrf: page.csrf, username: "alice", password: "correct horse battery")
            #expect(signedIn.status == 303, "\(signedIn.html)")
            let code = try browser.code(signedIn.location)
            // The wrong verifier burns nothing it should not: the code is single use anyway.
            let stolen = try await browser.exchange(code, verifier: Base64URL.random(byteCount: 32))
            #expect(stolen.status == 400 && stolen.json["error"] as? String == "invalid_grant")
            let again = try await browser.post(csrf: page.csrf, username: "alice", password: "correct horse battery")
            let second = try browser.code(again.location)
            let tokens = try await browser.exchange(second)
            #expect(tokens.status == 200, "\(tokens.json)")
            let access = try #require(tokens.json["access_token"] as? String)
            let refresh = try #require(tokens.json["refresh_token"] as? String)

            let me = try await admin.call(.GET, "/admin/v1/me", token: access)
            #expect(me.json["name"] as? String == "alice" && me.json["kind"] as? String == "person")
            // Her write is audited with how she signed in.
            let patched = try await admin.call(
                .PATCH, "/admin/v1/tenants/acme", token: access, body: #"{"displayName": "Acme A"}"#)
            #expect(patched.status == 200)
            let records = try await admin.stores.audit.records(
                matching: AuditQuery(chain: "acme", resourceType: .tenant, limit: 1)
            ).items
            #expect(records.first?.actor.name == "alice" && records.first?.actor.auth?.method == "password")
            #expect(records.first?.actor.auth?.clientID == "gatewayctl")

            // Refresh rotates: the new pair works, the old refresh token is spent.
            let renewed = try await Self.refresh(admin, refresh)
            let next = try #require(renewed.json["refresh_token"] as? String, "\(renewed.json)")
            #expect(next != refresh)
            let renewedAccess = try #require(renewed.json["access_token"] as? String)
            #expect(try await admin.call(.GET, "/admin/v1/me", token: renewedAccess).status == 200)
            let reused = try await Self.refresh(admin, refresh)
            #expect(reused.status == 400 && reused.json["error"] as? String == "invalid_grant")
            // A spent refresh token presented again is taken as stolen (RFC 9700 §4.14.2): the
            // sign-in it belongs to ends, its current refresh token and access tokens with it.
            #expect(try await Self.refresh(admin, next).json["error"] as? String == "invalid_grant")
            #expect(try await admin.call(.GET, "/admin/v1/me", token: renewedAccess).status == 401)
            #expect(try await admin.call(.GET, "/admin/v1/me", token: access).status == 401)

            // A code presented twice ends the sign-in it started the same way (RFC 6749 §4.1.2).
            let third = try await browser.post(csrf: page.csrf, username: "alice", password: "correct horse battery")
            let thirdCode = try browser.code(third.location)
            let thirdTokens = try await browser.exchange(thirdCode)
            let thirdAccess = try #require(thirdTokens.json["access_token"] as? String, "\(thirdTokens.json)")
            #expect(try await admin.call(.GET, "/admin/v1/me", token: thirdAccess).status == 200)
            #expect(try await browser.exchange(thirdCode).json["error"] as? String == "invalid_grant")
            #expect(try await admin.call(.GET, "/admin/v1/me", token: thirdAccess).status == 401)
            let thirdRefresh = try #require(thirdTokens.json["refresh_token"] as? String)
            #expect(try await Self.refresh(admin, thirdRefresh).json["error"] as? String == "invalid_grant")
        }
    }

    @Test(arguments: DatabaseBackend.available)
    func secondFactorIsAskedCheckedAndNotReplayable(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            let secret = try #require(try await Self.person(admin, totp: true))
            var browser = Browser(admin: admin)
            let page = try await browser.open()
            let asked = try await browser.post(csrf: page.csrf, username: "alice", password: "correct horse battery")
            #expect(asked.status == 200 && asked.html.contains("one-time code"), "\(asked.html)")
            let totp = try #require(TOTP(base32: secret))
            let now = TOTP.step(at: Date())
            let wrongCode = String(format: "%06d", (Int(totp.code(step: now))! + 1) % 1_000_000)
            let refused = try await browser.post(
                csrf: page.csrf, username: "alice", password: "correct horse battery", otp: wrongCode)
            #expect(refused.status == 401 && refused.html.contains("wrong or was used"))
            let code = totp.code(step: now)
            let signedIn = try await browser.post(
                csrf: page.csrf, username: "alice", password: "correct horse battery", otp: code)
            #expect(signedIn.status == 303, "\(signedIn.html)")
            let tokens = try await browser.exchange(try browser.code(signedIn.location))
            let access = try #require(tokens.json["access_token"] as? String)
            _ = try await admin.call(
                .PATCH, "/admin/v1/tenants/acme", token: access, body: #"{"displayName": "Acme T"}"#)
            let records = try await admin.stores.audit.records(
                matching: AuditQuery(chain: "acme", resourceType: .tenant, limit: 1)
            ).items
            #expect(records.first?.actor.auth?.method == "password+totp")
            // The same code again (a shoulder-surfed one) is refused.
            let replayed = try await browser.post(
                csrf: page.csrf, username: "alice", password: "correct horse battery", otp: code)
            #expect(replayed.status == 401)
            // Removing the factor ends her sign-ins: the access token stops working.
            _ = try await OperatorService(operators: admin.stores.operators)
                .setSecondFactor(name: "alice", enrol: false, actor: .local(user: "t"))
            #expect(try await admin.call(.GET, "/admin/v1/me", token: access).status == 401)
        }
    }

    @Test(arguments: DatabaseBackend.available)
    func aRealmThatRequiresTOTPRefusesAPersonWithout(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend, requireSecondFactor: true) { admin in
            _ = try await Self.person(admin)
            var browser = Browser(admin: admin)
            let page = try await browser.open()
            let refused = try await browser.post(csrf: page.csrf, username: "alice", password: "correct horse battery")
            #expect(refused.status == 403 && refused.html.contains("operator totp"), "\(refused.html)")
            #expect(refused.location == nil)
        }
    }

    @Test(arguments: DatabaseBackend.available)
    func badRequestsNeverRedirectToAnUncheckedAddress(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            var browser = Browser(admin: admin)
            let good = browser.query
            // Unknown client, a redirect that is not loopback, `localhost`: a page, no redirect.
            for bad in [
                good.replacingOccurrences(of: "client_id=gatewayctl", with: "client_id=evil"),
                good.replacingOccurrences(of: "127.0.0.1%3A53124", with: "evil.example%3A53124"),
                good.replacingOccurrences(of: "127.0.0.1%3A53124", with: "localhost%3A53124"),
                good.replacingOccurrences(of: "http%3A%2F%2F127", with: "https%3A%2F%2F127"),
            ] {
                let page = try await browser.open(bad)
                #expect(page.status == 403 && page.csrf == nil, "\(bad)")
            }
            // A trusted redirect URI gets the error: PKCE missing, another response type.
            let plain = try await browser.raw(
                .GET, "/admin/oauth2/authorize?" + good.replacingOccurrences(of: "S256", with: "plain"), body: nil)
            #expect(plain.status == 302 && plain.headers["Location"].first?.contains("error=invalid_request") == true)
            let token = try await browser.raw(
                .GET, "/admin/oauth2/authorize?" + good.replacingOccurrences(of: "=code&", with: "=token&"), body: nil)
            #expect(token.headers["Location"].first?.contains("error=unsupported_response_type") == true)
            // Over-long values: a page, not a problem document or a crash.
            let long = try await browser.open(
                good.replacingOccurrences(
                    of: "state=\(browser.state)", with: "state=" + String(repeating: "s", count: 600)))
            #expect(long.status == 400)
            // The public client has no secret: presenting one is invalid_client.
            let withSecret = try await admin.call(
                .POST, "/admin/oauth2/token", token: nil,
                body: "grant_type=refresh_token&client_id=gatewayctl&client_secret=x&refresh_token=sgr_x",
                contentType: "application/x-www-form-urlencoded")
            #expect(withSecret.status == 401 && withSecret.json["error"] as? String == "invalid_client")
            browser.redirectURI = "http://[::1]:8/cb"
            #expect(try await browser.open().status == 200)
        }
    }
    /// Starts a device authorization; answers its device and user codes.
    static func startDevice(_ admin: AdminAPITests.Admin) async throws -> (device: String, user: String, reply: AdminAPITests.Reply) {
        let reply = try await admin.call(
            .POST, "/admin/oauth2/device_authorization", token: nil, body: "client_id=gatewayctl",
            contentType: "application/x-www-form-urlencoded")
        return (
            try #require(reply.json["device_code"] as? String), try #require(reply.json["user_code"] as? String), reply
        )
    }

    static func poll(_ admin: AdminAPITests.Admin, _ deviceCode: String) async throws -> AdminAPITests.Reply {
        try await admin.call(
            .POST, "/admin/oauth2/token", token: nil,
            body: "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Adevice_code&client_id=gatewayctl&device_code=\(deviceCode)",
            contentType: "application/x-www-form-urlencoded")
    }

    /// A browser on the device page: opens it, approves `userCode` with the credentials.
    static func approve(
        _ admin: AdminAPITests.Admin, userCode: String, password: String = "correct horse battery"
    ) async throws -> (status: Int, html: String) {
        var browser = Browser(admin: admin)
        let page = try await browser.raw(.GET, "/admin/oauth2/device?user_code=" + Browser.encode(userCode), body: nil)
        #expect(page.status == 200)
        browser.cookie = page.headers["Set-Cookie"].first.map { String($0.prefix { $0 != ";" }) }
        let csrf = try #require(
            page.body.range(of: #"name="csrf_token" value="([^"]+)""#, options: .regularExpression).map {
                String(page.body[$0].dropFirst(#"name="csrf_token" value=""#.count).dropLast())
            })
        let reply = try await browser.raw(
            .POST, "/admin/oauth2/device",
            body: "csrf_token=\(Browser.encode(csrf))&user_code=\(Browser.encode(userCode))&username=alice&password=\(Browser.encode(password))")
        return (reply.status, reply.body)
    }

    @Test(arguments: DatabaseBackend.available)
    func aDeviceIsApprovedOnThePageAndPollsItsTokensOnce(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            _ = try await Self.person(admin)
            let metadata = try await admin.call(.GET, "/admin/.well-known/openid-configuration", token: nil)
            #expect(metadata.json["device_authorization_endpoint"] as? String != nil)
            let started = try await Self.startDevice(admin)
            #expect(started.user.range(of: "^[B-DF-HJ-NP-TV-XZ]{4}-[B-DF-HJ-NP-TV-XZ]{4}$", options: .regularExpression) != nil)
            #expect(started.reply.json["verification_uri"] as? String == "http://127.0.0.1:\(admin.port)/admin/oauth2/device")
            // Before the approval: pending, then slow_down for a poll that came too soon.
            #expect(try await Self.poll(admin, started.device).json["error"] as? String == "authorization_pending")
            #expect(try await Self.poll(admin, started.device).json["error"] as? String == "slow_down")
            // Wrong password: nothing approved. Then the code, typed in lower case with a space.
            #expect(try await Self.approve(admin, userCode: started.user, password: "wrong password").status == 401)
            let typed = started.user.lowercased().replacingOccurrences(of: "-", with: " ")
            let approved = try await Self.approve(admin, userCode: typed)
            #expect(approved.status == 200 && approved.html.contains("Device signed in"), "\(approved.html)")
            // Approved once: the same code again is unknown.
            #expect(try await Self.approve(admin, userCode: started.user).status == 400)
            let tokens = try await Self.poll(admin, started.device)
            let access = try #require(tokens.json["access_token"] as? String, "\(tokens.json)")
            #expect(tokens.json["refresh_token"] as? String != nil)
            #expect(try await admin.call(.GET, "/admin/v1/me", token: access).json["name"] as? String == "alice")
            // The device code answers tokens once.
            #expect(try await Self.poll(admin, started.device).json["error"] as? String == "expired_token")
            // An unknown client gets no device authorization.
            let unknown = try await admin.call(
                .POST, "/admin/oauth2/device_authorization", token: nil, body: "client_id=evil",
                contentType: "application/x-www-form-urlencoded")
            #expect(unknown.status == 401 && unknown.json["error"] as? String == "invalid_client")
        }
    }
}
