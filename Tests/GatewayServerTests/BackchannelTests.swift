import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Testing

@testable import GatewayCore
@testable import GatewayServer

/// OpenID CIBA through the super app (issue 50), over real sockets against a gateway with
/// Redis: a confidential client asks, the host app lists and answers, the client polls.
@Suite("Backchannel authentication (CIBA)", .serialized)
struct BackchannelTests {
    /// A CIBA client, a user signed in on the host app, and raw form and JSON calls.
    struct World {
        var kit: OAuthTestKit
        let clientID: String
        let secret: String
        var hostToken = ""

        var base: String { kit.base }

        /// A form post with the client's secret as `client_secret_basic`; the status and JSON.
        func post(
            _ path: String, _ fields: [String: String], clientID: String? = nil, secret: String? = nil
        ) async throws -> (status: Int, json: [String: JSONValue]) {
            var request = HTTPClientRequest(url: "\(base)/t/\(kit.tenant)\(path)")
            request.method = .POST
            let credentials = "\(clientID ?? self.clientID):\(secret ?? self.secret)"
            request.headers.add(name: "Authorization", value: "Basic " + Data(credentials.utf8).base64EncodedString())
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            request.body = .bytes(
                ByteBuffer(string: fields.map { "\($0)=\(URLQuery.encode($1))" }.joined(separator: "&")))
            return try await Self.send(request)
        }

        /// A host-app call with `token` (the world's user by default).
        func host(
            _ method: HTTPMethod, _ path: String, json: String? = nil, token: String? = nil
        ) async throws -> (status: Int, json: [String: JSONValue]) {
            var request = HTTPClientRequest(url: "\(base)/t/\(kit.tenant)/v1/me/sign-in-requests\(path)")
            request.method = method
            request.headers.add(name: "Authorization", value: "Bearer \(token ?? hostToken)")
            if let json {
                request.headers.add(name: "Content-Type", value: "application/json")
                request.body = .bytes(ByteBuffer(string: json))
            }
            return try await Self.send(request)
        }

        static func send(_ request: HTTPClientRequest) async throws -> (status: Int, json: [String: JSONValue]) {
            let response = try await TestHTTP.noRedirects.execute(request, timeout: .seconds(15))
            let body = try await response.body.collect(upTo: 1 << 20)
            return (Int(response.status.code), (try? JSONValue.decode(Data(buffer: body)).objectValue) ?? [:])
        }

        func ask(_ fields: [String: String] = [:]) async throws -> (status: Int, json: [String: JSONValue]) {
            try await post(
                "/oauth2/bc-authorize",
                ["scope": "openid profile", "login_hint": kit.username, "binding_message": "TV 4821"].merging(fields) {
                    $1
                })
        }

        func poll(_ id: String) async throws -> (status: Int, json: [String: JSONValue]) {
            try await post("/oauth2/token", ["grant_type": BackchannelRules.grantType, "auth_req_id": id])
        }
    }

    /// A gateway on `clock` with a CIBA client (`configure`d) and the kit's user signed in on the host app.
    func withWorld(
        clock: WallClock = .system, configure: @escaping @Sendable (inout OAuthClient) -> Void = { _ in },
        _ body: @Sendable @escaping (World) async throws -> Void
    ) async throws {
        try await GatewayHarness.withGateway(clock: clock) { harness, client, port in
            let kit = OAuthTestKit(harness: harness, client: client, port: port)
            try await kit.setUp()
            let (secret, hash) = ClientSecret.generate()
            var ciba = OAuthClient(
                tenantID: kit.tenant, clientID: "tv-" + UUID().uuidString.prefix(6).lowercased(), confidential: true,
                redirectURIs: [])
            ciba.grantTypes = [BackchannelRules.grantType]
            ciba.backchannelMode = .poll
            configure(&ciba)
            try ciba.validate()
            try await kit.store.addClient(ciba, secretHash: hash)
            var world = World(kit: kit, clientID: ciba.clientID, secret: secret)
            world.hostToken = try await kit.tokens().accessToken
            try await body(world)
        }
    }

    @Test("poll mode end to end: discovery, pending, slow_down, the host app's list and approval, tokens once")
    func pollModeEndToEnd() async throws {
        try await withWorld { world in
            let metadata = try await World.send(
                HTTPClientRequest(url: "\(world.base)/t/demo/.well-known/openid-configuration"))
            #expect(
                metadata.json["backchannel_authentication_endpoint"]?.stringValue == world.kit.issuer
                    + "/oauth2/bc-authorize")
            #expect(metadata.json["grant_types_supported"]?.strings.contains(BackchannelRules.grantType) == true)
            #expect(metadata.json["backchannel_token_delivery_modes_supported"]?.strings == ["poll", "ping"])

            let asked = try await world.ask()
            #expect(asked.status == 200, "\(asked.json)")
            let id = try #require(asked.json["auth_req_id"]?.stringValue)
            #expect(asked.json["expires_in"]?.int64Value == 120 && asked.json["interval"]?.int64Value == 5)

            #expect(try await world.poll(id).json["error"]?.stringValue == "authorization_pending")
            let fast = try await world.poll(id)
            #expect(fast.status == 400 && fast.json["error"]?.stringValue == "slow_down", "\(fast.json)")

            let list = try await world.host(.GET, "")
            let items = try #require(list.json["items"]?.arrayValue)
            #expect(items.count == 1, "\(list.json)")
            let item = try #require(items.first?.objectValue)
            #expect(item["id"]?.stringValue == id && item["bindingMessage"]?.stringValue == "TV 4821")
            #expect(item["clientId"]?.stringValue == world.clientID && item["address"]?.stringValue == "127.0.0.1")

            // Another user of the tenant cannot see or answer it.
            var other = world.kit
            other.username = "bob-" + UUID().uuidString.prefix(6).lowercased()
            try await other.store.addUser(
                LocalUser(
                    tenantID: "demo", username: other.username,
                    passwordHash: try PasswordHasher(logN: 12).hash(other.password)))
            let bobToken = try await other.tokens().accessToken
            #expect(try await world.host(.GET, "", token: bobToken).json["items"]?.arrayValue?.isEmpty == true)
            #expect(try await world.host(.POST, "/\(id)/approve", token: bobToken).status == 404)

            // As `curl -X POST` sends it: no body, no Content-Length, no Content-Type (issue 62 §3).
            let port = try #require(URLComponents(string: world.base)?.port)
            let raw = try await RawConnection.connect(port: port)
            try await raw.send(
                "POST /t/\(world.kit.tenant)/v1/me/sign-in-requests/\(id)/approve HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "Authorization: Bearer \(world.hostToken)\r\nConnection: close\r\n\r\n")
            #expect(await raw.received("\r\n\r\n", within: .seconds(10)))
            #expect(raw.text.hasPrefix("HTTP/1.1 204"), "\(raw.text)")
            await raw.close()
            let again = try await world.host(.POST, "/\(id)/deny")
            #expect(again.status == 409 && again.json["code"]?.stringValue == "sign_in_request_answered")
            #expect(try await world.host(.GET, "").json["items"]?.arrayValue?.isEmpty == true)

            let tokens = try await world.poll(id)
            #expect(tokens.status == 200, "\(tokens.json)")
            let idToken = try jwtClaims(try #require(tokens.json["id_token"]?.stringValue))
            let user = try #require(try await world.kit.store.user(tenantID: "demo", username: world.kit.username))
            #expect(idToken["sub"]?.stringValue == user.subject && idToken["aud"]?.stringValue == world.clientID)
            #expect(idToken["iss"]?.stringValue == world.kit.issuer)
            #expect(idToken["urn:openid:params:jwt:claim:auth_req_id"]?.stringValue == id)
            #expect(idToken["at_hash"] != nil && idToken["urn:openid:params:jwt:claim:rt_hash"] != nil)
            #expect(idToken["auth_time"] != nil && idToken["nonce"] == nil)
            #expect(try await world.poll(id).json["error"]?.stringValue == "invalid_grant")

            // Both the request and the answer are in the tenant's audit trail.
            let records = try await world.kit.harness.operatorStores.audit.records(
                matching: AuditQuery(chain: "demo", resourceType: .user, resourceID: user.subject, limit: 10)
            ).items
            let request = try #require(records.first { $0.note?.action == "sign-in-request" })
            #expect(request.actor.subject == "client:\(world.clientID)" && request.actor.address == "127.0.0.1")
            #expect(request.note?.summary?.contains("TV 4821") == true)
            let approved = try #require(records.first { $0.note?.action == "sign-in-approve" })
            #expect(approved.actor.subject == "user:\(user.subject)")
        }
    }

    @Test(
        "the request reaches the user's phone through the tenant's FCM with the binding message, without any consent; the answer replaces it",
        arguments: DatabaseBackend.available)
    func pushToTheUsersDevices(backend: DatabaseBackend) async throws {
        try await FakeFCM.with { fcm in
            let time = ManualClock(Date())
            try await GatewayHarness.withGateway(backend: backend, clock: time.clock) { harness, client, port in
                let kit = OAuthTestKit(harness: harness, client: client, port: port)
                try await kit.setUp()
                let (secret, hash) = ClientSecret.generate()
                var tv = OAuthClient(tenantID: "demo", clientID: "tv", confidential: true, redirectURIs: [])
                (tv.grantTypes, tv.backchannelMode) = ([BackchannelRules.grantType], .poll)
                try await kit.store.addClient(tv, secretHash: hash)
                var world = World(kit: kit, clientID: "tv", secret: secret)
                world.hostToken = try await kit.tokens().accessToken
                try await harness.operatorStores.pushCredentials.setCredentials(
                    try fcm.credentials, tenantID: "demo", now: time.clock.now())
                _ = try await kit.authorizedClient("Bearer \(world.hostToken)").registerDevice(
                    path: .init(tenant: "demo"),
                    body: .json(.init(provider: .fcm, token: "alices-phone", platform: .android, locale: "ja"))
                ).created
                // A second device that turned sign-in requests off gets none of them.
                let tablet = try await kit.authorizedClient("Bearer \(world.hostToken)").registerDevice(
                    path: .init(tenant: "demo"),
                    body: .json(.init(provider: .fcm, token: "alices-tablet", platform: .android))
                ).created.body.json.id
                var off = HTTPClientRequest(url: "\(world.base)/t/demo/v1/me/devices/\(tablet)/sign-in-requests")
                off.method = .PUT
                off.headers.add(name: "Authorization", value: "Bearer \(world.hostToken)")
                off.headers.add(name: "Content-Type", value: "application/json")
                off.body = .bytes(ByteBuffer(string: #"{"enabled": false}"#))
                #expect(try await World.send(off).status == 204)
                var missing = off
                missing.url = "\(world.base)/t/demo/v1/me/devices/dev_none/sign-in-requests"
                let notFound = try await World.send(missing)
                #expect(notFound.status == 404 && notFound.json["code"]?.stringValue == "device_not_found")
                let worker = PushDeliveryTests.worker(harness, fcm: fcm, clock: time)

                let id = try #require(try await world.ask().json["auth_req_id"]?.stringValue)
                let queued = try await harness.operatorStores.outbox.messages(tenantID: "demo", before: nil, limit: 5)
                #expect(queued.count == 1, "\(queued)")
                let delivered = try await worker.deliverDue()
                #expect(delivered == 1, "\(queued)")
                let asked = try #require(fcm.received.withLock { $0 }.last)
                #expect(asked.token == "alices-phone" && asked.title == "サインインの要求", "\(asked)")
                #expect(asked.body?.contains("tv") == true && asked.body?.contains("TV 4821") == true)
                #expect(asked.data["type"] == "sign-in-request" && asked.data["requestId"] == id)
                #expect(asked.collapseKey == id)

                // A hint naming nobody queues no delivery at all.
                _ = try await world.ask(["login_hint": "nobody-\(UUID().uuidString.prefix(6))"])
                #expect(try await worker.deliverDue() == 0)

                #expect(try await world.host(.POST, "/\(id)/approve").status == 204)
                #expect(try await worker.deliverDue() == 1)
                let answered = try #require(fcm.received.withLock { $0 }.last)
                #expect(answered.data["type"] == "sign-in-request-answered" && answered.collapseKey == id)
                #expect(try await world.poll(id).status == 200)
            }
        }
    }

    @Test("deny answers access_denied; no answer expires (expired_token); a hint naming nobody looks alike")
    func denyExpiryAndUnknownUsers() async throws {
        let time = ManualClock(Date())
        try await withWorld(clock: time.clock) { world in
            let denied = try #require(try await world.ask().json["auth_req_id"]?.stringValue)
            #expect(try await world.host(.POST, "/\(denied)/deny").status == 204)
            let refused = try await world.poll(denied)
            #expect(refused.status == 400 && refused.json["error"]?.stringValue == "access_denied")

            let unknown = try await world.ask(["login_hint": "nobody-\(UUID().uuidString.prefix(6))"])
            let known = try await world.ask(["requested_expiry": "120"])
            #expect(unknown.status == 200 && known.status == 200)
            #expect(Set(unknown.json.keys) == Set(known.json.keys))
            let unknownID = try #require(unknown.json["auth_req_id"]?.stringValue)
            let knownID = try #require(known.json["auth_req_id"]?.stringValue)
            #expect(try await world.poll(unknownID).json["error"]?.stringValue == "authorization_pending")
            time.advance(by: .seconds(121))
            #expect(try await world.poll(knownID).json["error"]?.stringValue == "expired_token")
            #expect(try await world.poll(unknownID).json["error"]?.stringValue == "expired_token")
            let late = try await world.host(.POST, "/\(knownID)/approve")
            #expect(late.status == 404, "\(late.json)")
        }
    }

    @Test("every error of CIBA §13's table, with its status")
    func theErrorTable() async throws {
        try await withWorld(configure: { $0.backchannelUserCodeRequired = true }) { world in
            func error(_ answer: (status: Int, json: [String: JSONValue])) -> String {
                "\(answer.json["error"]?.stringValue ?? "-") \(answer.status)"
            }
            var user = try #require(try await world.kit.store.user(tenantID: "demo", username: world.kit.username))
            let seed = TOTP.newSecret()
            user.totpSecret = SecretValue(seed)
            try await world.kit.store.updateUser(user)
            let code = try #require(TOTP(base32: seed)).code(step: TOTP.step(at: Date()))

            #expect(error(try await world.ask(["user_code": code, "scope": "profile"])) == "invalid_scope 400")
            #expect(error(try await world.ask(["user_code": code, "scope": "openid admin"])) == "invalid_scope 400")
            #expect(error(try await world.ask(["user_code": code, "login_hint": ""])) == "invalid_request 400")
            #expect(
                error(try await world.ask(["user_code": code, "id_token_hint": "x.y.z"])) == "invalid_request 400")
            #expect(
                error(try await world.ask(["user_code": code, "requested_expiry": "99999"])) == "invalid_request 400")
            #expect(
                error(try await world.ask(["user_code": code, "binding_message": "<script>"]))
                    == "invalid_binding_message 400")
            #expect(error(try await world.ask()) == "missing_user_code 400")
            #expect(error(try await world.ask(["user_code": "000000x"])) == "invalid_user_code 400")
            #expect(
                error(
                    try await world.post(
                        "/oauth2/bc-authorize", ["scope": "openid", "login_hint": "x"], secret: "wrong")
                ) == "invalid_client 401")
            #expect(
                error(
                    try await world.post(
                        "/oauth2/bc-authorize",
                        ["scope": "openid", "login_hint": "x", "login_hint_token": "a.b.c"]))
                    == "invalid_request 400")
            #expect(
                error(
                    try await world.post(
                        "/oauth2/bc-authorize", ["scope": "openid", "login_hint_token": "a.b.c"]))
                    == "invalid_request 400")
            let accepted = try await world.ask(["user_code": code])
            #expect(accepted.status == 200, "\(accepted.json)")
        }
        // A client not registered for the grant.
        try await withWorld(configure: {
            $0.grantTypes = ["authorization_code"]
            $0.backchannelMode = nil
            $0.redirectURIs = ["http://127.0.0.1/cb"]
        }) { world in
            let answer = try await world.ask()
            #expect(answer.status == 400 && answer.json["error"]?.stringValue == "unauthorized_client")
        }
    }

    @Test("a user gets five requests a minute, whoever asks; the sixth is access_denied (403)")
    func perUserRate() async throws {
        try await withWorld(clock: ManualClock.startOfWindow(60).clock) { world in
            for _ in 0..<BackchannelRules.perUserPerMinute {
                #expect(try await world.ask().status == 200)
            }
            let sixth = try await world.ask()
            #expect(sixth.status == 403 && sixth.json["error"]?.stringValue == "access_denied", "\(sixth.json)")
            let stranger = "nobody-\(UUID().uuidString.prefix(6))"
            for _ in 0..<BackchannelRules.perUserPerMinute {
                #expect(try await world.ask(["login_hint": stranger]).status == 200)
            }
            #expect(try await world.ask(["login_hint": stranger]).status == 403)
        }
    }

    @Test("step-up: acr_values asking for a TOTP code, and a host-app sign-in older than five minutes")
    func stepUp() async throws {
        let time = ManualClock(Date())
        try await withWorld(clock: time.clock) { world in
            var user = try #require(try await world.kit.store.user(tenantID: "demo", username: world.kit.username))
            let seed = TOTP.newSecret()
            user.totpSecret = SecretValue(seed)
            try await world.kit.store.updateUser(user)
            let totp = try #require(TOTP(base32: seed))

            let id = try #require(
                try await world.ask(["acr_values": BackchannelRules.totpACR]).json["auth_req_id"]?.stringValue)
            let bare = try await world.host(.POST, "/\(id)/approve")
            #expect(bare.status == 403 && bare.json["code"]?.stringValue == "step_up_required", "\(bare)")
            let byPassword = try await world.host(
                .POST, "/\(id)/approve", json: #"{"password": "correct horse battery"}"#)
            #expect(byPassword.json["code"]?.stringValue == "step_up_required")
            let wrong = try await world.host(.POST, "/\(id)/approve", json: #"{"totp": "000000"}"#)
            #expect(wrong.status == 403 && wrong.json["code"]?.stringValue == "step_up_failed")
            let code = totp.code(step: TOTP.step(at: time.clock.now()))
            #expect(try await world.host(.POST, "/\(id)/approve", json: #"{"totp": "\#(code)"}"#).status == 204)
            let tokens = try await world.poll(id)
            let idToken = try jwtClaims(try #require(tokens.json["id_token"]?.stringValue))
            #expect(idToken["acr"]?.stringValue == BackchannelRules.totpACR && idToken["amr"]?.strings == ["otp"])

            // The host app's sign-in grows old: a plain approval is refused, the password steps up.
            time.advance(by: .seconds(CIBASettings.defaultRecentSignInSeconds + 1))
            let later = try #require(try await world.ask().json["auth_req_id"]?.stringValue)
            let old = try await world.host(.POST, "/\(later)/approve")
            #expect(old.status == 403 && old.json["code"]?.stringValue == "step_up_required", "\(old)")
            #expect(
                try await world.host(.POST, "/\(later)/approve", json: #"{"password": "correct horse battery"}"#).status
                    == 204)
            #expect(try await world.poll(later).status == 200)
        }
    }

    @Test(
        "a CIBA client written from the spec (Python): poll and ping end to end, tokens it verifies, the error table",
        .enabled(
            if: PythonScript.canImport("authlib, requests"),
            "python3 with authlib and requests is not installed (pip install -r scripts/test-requirements.txt)"))
    func specClient() async throws {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        let pingPort = try #require(channel.localAddress?.port)
        try await channel.close()
        try await FakeFCM.with { fcm in
            try await withWorld { world in
                let (pingSecret, hash) = ClientSecret.generate()
                var ping = OAuthClient(
                    tenantID: "demo", clientID: world.clientID + "-ping", confidential: true, redirectURIs: [])
                ping.grantTypes = [BackchannelRules.grantType]
                ping.backchannelMode = .ping
                ping.backchannelNotificationEndpoint = "http://127.0.0.1:\(pingPort)/ciba"
                try ping.validate()
                try await world.kit.store.addClient(ping, secretHash: hash)
                // The spec client listens on loopback, which pings reach only when the tenant allows it.
                try await world.kit.harness.updateTenant("demo") { $0.ciba.allowPrivateNotificationEndpoints = true }
                // The user's phone, on the tenant's FCM.
                try await world.kit.harness.operatorStores.pushCredentials.setCredentials(
                    try fcm.credentials, tenantID: "demo", now: Date())
                _ = try await world.kit.authorizedClient("Bearer \(world.hostToken)").registerDevice(
                    path: .init(tenant: "demo"),
                    body: .json(.init(provider: .fcm, token: "alices-phone", platform: .android))
                ).created
                let (status, output) = try await PythonScript.run(
                    "ciba_client.py",
                    [
                        world.base, "demo", world.clientID, world.secret, ping.clientID, pingSecret, String(pingPort),
                        world.kit.username, world.hostToken,
                    ])
                #expect(status == 0, "\(output)")
                #expect(output.contains("ok expired_token"), "\(output)")

                // Every request the spec client made reached the phone with its binding message.
                let worker = PushDeliveryTests.worker(world.kit.harness, fcm: fcm, clock: ManualClock(Date()))
                while try await worker.deliverDue() > 0 {}
                let pushed = fcm.received.withLock { $0 }.filter { $0.token == "alices-phone" }.compactMap(\.body)
                let messages = output.split(separator: "\n").filter { $0.hasPrefix("binding ") }.map { $0.dropFirst(8) }
                #expect(messages.count == 3, "\(output)")
                for message in messages {
                    #expect(pushed.contains { $0.contains(message) }, "\(message) not in \(pushed)")
                }
            }
        }
    }
}
