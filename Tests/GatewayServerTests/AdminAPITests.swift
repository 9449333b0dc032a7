import AsyncHTTPClient
import Foundation
import GatewayCore
import GatewayServer
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import Testing

/// The admin listener (issue 48) on real sockets, on both engines: service accounts trade
/// their secret for a token; every role against every admin operation (allowed → 2xx, not
/// allowed → 403, another tenant → 404) from the role table; If-Match races; refusals audited.
@Suite("Admin API")
struct AdminAPITests {
    struct Reply {
        var status: Int
        var headers: HTTPHeaders
        var json: [String: Any]
    }

    /// A running admin listener on a test gateway's stores, and service accounts per role.
    struct Admin {
        let port: Int
        let stores: DurableStores
        /// The admin listener's metrics.
        var metrics = GatewayMetrics()
        /// What a local gatewayctl needs to open the same database.
        var databaseEnvironment: [String: String] = [:]
        var tokens: [String: String] = [:]

        func call(
            _ method: HTTPMethod, _ path: String, token: String?, body: String? = nil, headers: [(String, String)] = [],
            contentType: String = "application/merge-patch+json", rawBody: String? = nil
        ) async throws -> Reply {
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
            request.method = method
            if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
            for (name, value) in headers { request.headers.add(name: name, value: value) }
            if let body {
                request.headers.add(name: "Content-Type", value: contentType)
                request.body = .bytes(ByteBuffer(string: body))
            }
            // A body sent with exactly the headers given (no Content-Type added).
            if let rawBody { request.body = .bytes(ByteBuffer(string: rawBody)) }
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
            let bytes = try await response.body.collect(upTo: 1 << 20)
            let json = (try? JSONSerialization.jsonObject(with: Data(buffer: bytes))) as? [String: Any] ?? [:]
            return Reply(status: Int(response.status.code), headers: response.headers, json: json)
        }

        /// Every page of a list (`path` with its query, `limit` included), following `next`;
        /// the items' `key` values in order, and every page's reply (at most 100 pages).
        func pages(_ path: String, key: String, token: String?) async throws -> (ids: [String], replies: [Reply]) {
            var (ids, replies, cursor): ([String], [Reply], String?) = ([], [], nil)
            repeat {
                let page = try await call(.GET, path + (cursor.map { "&cursor=\($0)" } ?? ""), token: token)
                ids += (page.json["items"] as? [[String: Any]] ?? []).compactMap { $0[key] as? String }
                replies.append(page)
                cursor = page.json["next"] as? String
            } while cursor != nil && replies.count < 100
            return (ids, replies)
        }

        func token(_ clientID: String, _ secret: String, basic: Bool = false) async throws -> Reply {
            if basic {
                let credentials = Data("\(clientID):\(secret)".utf8).base64EncodedString()
                return try await call(
                    .POST, "/admin/oauth2/token", token: nil, body: "grant_type=client_credentials",
                    headers: [("Authorization", "Basic \(credentials)")],
                    contentType: "application/x-www-form-urlencoded")
            }
            return try await call(
                .POST, "/admin/oauth2/token", token: nil,
                body: "grant_type=client_credentials&client_id=\(clientID)&client_secret=\(secret)",
                contentType: "application/x-www-form-urlencoded")
        }
    }

    static let roles: [(name: String, role: OperatorRole, tenant: String?)] = [
        ("root", .platformAdmin, nil), ("acme-admin", .tenantAdmin, "acme"), ("acme-releaser", .releaseManager, "acme"),
        ("acme-sender", .pushSender, "acme"), ("acme-auditor", .auditor, "acme"), ("acme-viewer", .viewer, "acme"),
    ]

    /// Starts an admin listener beside a test gateway, with tenants acme and beta and one
    /// service account per role.
    static func withAdmin(
        backend: DatabaseBackend, requireSecondFactor: Bool = false, _ body: @Sendable (Admin) async throws -> Void
    ) async throws {
        try await GatewayHarness.withGateway(useRedis: false, backend: backend) { harness, _, _ in
            let stores = harness.bootstrap.stores
            for id in ["acme", "beta"] { try await stores.tenants.create(Tenant(id: id, displayName: id), actor: "t") }
            let operators = OperatorService(operators: stores.operators, hasher: PasswordHasher(logN: 10))
            var secrets: [String: String] = [:]
            for (name, role, tenant) in roles {
                let created = try await operators.create(
                    name: name, credential: .generatedSecret, roles: [(role, tenant)], actor: .local(user: "test"))
                secrets[name] = created.secret
            }
            let issued = secrets
            try await withAdminListener(stores: stores, requireSecondFactor: requireSecondFactor) { port, metrics in
                var admin = Admin(port: port, stores: stores, metrics: metrics)
                admin.databaseEnvironment = [
                    "GATEWAY_DATABASE_PATH": harness.configuration.databasePath,
                    "GATEWAY_MASTER_KEY": GatewayHarness.masterKeyBase64,
                ].merging(harness.configuration.databaseURL.map { ["GATEWAY_DATABASE_URL": $0] } ?? [:]) { $1 }
                for (name, secret) in issued {
                    let reply = try await admin.token(name, secret)
                    admin.tokens[name] = try #require(reply.json["access_token"] as? String, "\(reply.json)")
                }
                try await body(admin)
            }
        }
    }

    /// Runs an admin listener on `stores` (and `cache`, the gateway's own when the test has
    /// one) for the length of `body`, which gets its port and metrics.
    static func withAdminListener(
        stores: DurableStores, cache: any Cache = MemoryCache(), requireSecondFactor: Bool = false,
        publicBaseURL: String? = nil, _ body: @Sendable (Int, GatewayMetrics) async throws -> Void
    ) async throws {
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let logger = Logger(label: "admin-test")
        let metrics = GatewayMetrics()
        let app = try AdminApplication.make(
            host: "127.0.0.1", port: 0,
            services: .init(
                stores: stores, metrics: metrics, clock: .system, cache: cache,
                requireSecondFactor: requireSecondFactor, hasher: PasswordHasher(logN: 10), publicBaseURL: publicBaseURL),
            logger: logger,
            onServerRunning: { continuation.yield($0) })
        let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var iterator = ports.makeAsyncIterator()
            do {
                try await body(try #require(await iterator.next()), metrics)
            } catch {
                await group.triggerGracefulShutdown()
                throw error
            }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }

    @Test(arguments: DatabaseBackend.available)
    func tokenEndpoint(backend: DatabaseBackend) async throws {
        try await Self.withAdmin(backend: backend) { admin in
            let created = try await OperatorService(operators: admin.stores.operators).create(
                name: "basic-bot", credential: .generatedSecret, actor: .local(user: "test"))
            let secret = try #require(created.secret)
            let basic = try await admin.token("basic-bot", secret, basic: true)
            #expect(basic.status == 200 && basic.json["token_type"] as? String == "Bearer")
            #expect(basic.json["expires_in"] as? Int == 900 && basic.headers["Cache-Control"].first == "no-store")
            let me = try await admin.call(.GET, "/admin/v1/me", token: basic.json["access_token"] as? String)
            #expect(me.status == 200 && me.json["name"] as? String == "basic-bot" && me.json["kind"] as? String == "service-account")

            let wrong = try await admin.token("basic-bot", "not-the-secret")
            #expect(wrong.status == 401 && wrong.json["error"] as? String == "invalid_client")
            #expect(try await admin.token("nobody", secret).json["error"] as? String == "invalid_client")
            let grant = try await admin.call(
                .POST, "/admin/oauth2/token", token: nil, body: "grant_type=password&client_id=basic-bot",
                contentType: "application/x-www-form-urlencoded")
            #expect(grant.status == 400 && grant.json["error"] as? String == "unsupported_grant_type")

            for token in [nil, "garbage", "sgo_unknown"] {
                let refused = try await admin.call(.GET, "/admin/v1/tenants", token: token)
                #expect(refused.status == 401 && refused.json["code"] as? String == "unauthorized")
                #expect(refused.headers["WWW-Authenticate"].first?.hasPrefix("Bearer") == true)
            }
            // A declared path asked with another method is 405 with Allow; an undeclared query
            // parameter is refused, not ignored.
            let trace = try await admin.call(.TRACE, "/admin/v1/me", token: admin.tokens["root"])
            #expect(trace.status == 405 && trace.headers["Allow"].first == "GET" && trace.json["code"] as? String == "method_not_allowed")
            let post = try await admin.call(.GET, "/admin/oauth2/token", token: nil)
            #expect(post.status == 405 && post.headers["Allow"].first == "POST")
            let unknown = try await admin.call(.GET, "/admin/v1/tenants?limit=5&bogus=1", token: admin.tokens["root"])
            #expect(unknown.status == 400 && unknown.json["code"] as? String == "invalid_request")
            // The admin listener serves the admin contract only.
            #expect(try await admin.call(.GET, "/t/acme/v1/home", token: admin.tokens["root"]).status == 404)
        }
    }

    /// Every role against every admin operation, expectations from the role table.
    @Test(arguments: DatabaseBackend.available)
    func everyRoleAgainstEveryOperation(backend: DatabaseBackend) async throws {
        struct Operation: Sendable {
            var permission: AdminPermission
            var method: HTTPMethod
            var path: @Sendable (String) -> String
            var body: (@Sendable (String) -> String)? = nil
        }
        let operations = [
            Operation(permission: AdminPermission(.read, .tenant), method: .GET, path: { "/admin/v1/tenants/\($0)" }),
            Operation(
                permission: AdminPermission(.update, .tenant), method: .PATCH, path: { "/admin/v1/tenants/\($0)" },
                body: { _ in #"{"displayName": "Renamed"}"# }),
            Operation(
                permission: AdminPermission(.act, .tenant), method: .POST, path: { "/admin/v1/tenants/\($0)/actions" },
                body: { _ in #"{"action": "resume"}"# }),
            Operation(permission: AdminPermission(.read, .client), method: .GET, path: { "/admin/v1/tenants/\($0)/clients" }),
            Operation(
                permission: AdminPermission(.update, .client), method: .PATCH, path: { "/admin/v1/tenants/\($0)/clients/app" },
                body: { _ in #"{"requirePAR": false}"# }),
            Operation(permission: AdminPermission(.read, .audit), method: .GET, path: { "/admin/v1/audit?tenant=\($0)" }),
            Operation(
                permission: AdminPermission(.read, .pushCredential), method: .GET,
                path: { "/admin/v1/tenants/\($0)/push-credentials" }),
            Operation(
                permission: AdminPermission(.read, .linkDomain), method: .GET, path: { "/admin/v1/tenants/\($0)/link-domains" }),
            Operation(
                permission: AdminPermission(.create, .linkDomain), method: .POST, path: { "/admin/v1/tenants/\($0)/link-domains" },
                body: { "{\"host\": \"links.\($0).example\", \"appIDs\": [\"ABCDE12345.com.\($0).app\"]}" }),
            Operation(
                permission: AdminPermission(.read, .trustedIssuer), method: .GET,
                path: { "/admin/v1/tenants/\($0)/trusted-issuers" }),
            Operation(
                permission: AdminPermission(.create, .trustedIssuer), method: .POST,
                path: { "/admin/v1/tenants/\($0)/trusted-issuers" },
                body: { _ in #"{"issuer": "https://login.partner.example", "audience": "api"}"# }),
            Operation(
                permission: AdminPermission(.read, .identityProvider), method: .GET,
                path: { "/admin/v1/tenants/\($0)/identity-providers" }),
            Operation(
                permission: AdminPermission(.read, .localization), method: .GET, path: { "/admin/v1/tenants/\($0)/localization" }),
            Operation(
                permission: AdminPermission(.update, .localization), method: .POST,
                path: { "/admin/v1/tenants/\($0)/localization/ja/texts" }, body: { _ in #"{"texts": {"a.key": "あ"}}"# }),
            Operation(
                permission: AdminPermission(.create, .user), method: .POST, path: { "/admin/v1/tenants/\($0)/user-imports" },
                body: { _ in #"{"users": [{"username": "imported", "upstreamOnly": true}]}"# }),
            Operation(
                permission: AdminPermission(.read, .notification), method: .GET, path: { "/admin/v1/tenants/\($0)/notifications" }),
            Operation(
                permission: AdminPermission(.act, .notification), method: .POST, path: { "/admin/v1/tenants/\($0)/notifications" },
                body: { _ in #"{"miniAppID": "hello", "everyone": true, "texts": {"default": {"title": "t", "body": "b"}}}"# }),
            Operation(permission: AdminPermission(.read, .storage), method: .GET, path: { "/admin/v1/tenants/\($0)/storage" }),
            Operation(
                permission: AdminPermission(.delete, .storage), method: .POST, path: { "/admin/v1/tenants/\($0)/storage/wipes" },
                body: { _ in #"{"user": "bob", "miniApp": "hello"}"# }),
            Operation(
                permission: AdminPermission(.read, .analytics), method: .GET,
                path: { "/admin/v1/tenants/\($0)/analytics/summary" }),
            Operation(permission: AdminPermission(.read, .user), method: .GET, path: { "/admin/v1/tenants/\($0)/users/bob" }),
            Operation(
                permission: AdminPermission(.update, .user), method: .PATCH, path: { "/admin/v1/tenants/\($0)/users/bob" },
                body: { _ in #"{"name": "Bob"}"# }),
            Operation(
                permission: AdminPermission(.act, .user), method: .POST, path: { "/admin/v1/tenants/\($0)/users/bob/actions" },
                body: { _ in #"{"action": "enable"}"# }),
            Operation(
                permission: AdminPermission(.read, .signingKey), method: .GET, path: { "/admin/v1/tenants/\($0)/signing-keys" }),
            Operation(
                permission: AdminPermission(.act, .signingKey), method: .POST, path: { "/admin/v1/tenants/\($0)/signing-keys" },
                body: { _ in #"{"alg": "ES256"}"# }),
            Operation(
                permission: AdminPermission(.read, .release), method: .GET,
                path: { "/admin/v1/tenants/\($0)/miniapps/hello/release" }),
            Operation(
                permission: AdminPermission(.read, .release), method: .GET,
                path: { "/admin/v1/tenants/\($0)/miniapps/hello/release/history" }),
            Operation(
                permission: AdminPermission(.update, .release), method: .PATCH,
                path: { "/admin/v1/tenants/\($0)/miniapps/hello/release" }, body: { _ in #"{"stable": "v1"}"# }),
            Operation(
                permission: AdminPermission(.act, .release), method: .POST,
                path: { "/admin/v1/tenants/\($0)/miniapps/hello/release/actions" },
                body: { _ in #"{"action": "withdraw", "version": "v0"}"# }),
            Operation(
                permission: AdminPermission(.update, .operator), method: .POST,
                path: { _ in "/admin/v1/operators/beta-bot/bindings" },
                body: { "{\"role\": \"viewer\", \"tenant\": \"\($0)\"}" }),
            Operation(
                permission: AdminPermission(.update, .operator), method: .DELETE,
                path: { "/admin/v1/operators/beta-bot/bindings?role=viewer&tenant=\($0)" }),
        ]
        try await Self.withAdmin(backend: backend) { admin in
            for tenant in ["acme", "beta"] {
                try await admin.stores.releases.save(
                    ReleasePolicy(tenantID: tenant, miniAppID: "hello", stable: "v1"),
                    entry: ReleaseHistoryEntry(at: Date(), actor: "test", action: .set, summary: "stable v1"))
            }
            _ = try await OperatorService(operators: admin.stores.operators).create(
                name: "beta-bot", credential: .generatedSecret, roles: [(.viewer, "beta")], actor: .local(user: "test"))
            try await admin.stores.auth.addClients(
                ["acme", "beta"].map { NewClient(OAuthClient(tenantID: $0, clientID: "app", redirectURIs: ["https://app.example/cb"]), secretHash: nil) })
            try await admin.stores.auth.addUsers(["acme", "beta"].map { LocalUser(tenantID: $0, username: "bob", passwordHash: "ph") })
            for (name, role, _) in Self.roles {
                let token = admin.tokens[name]
                for operation in operations {
                    let allowed = role.permissions.contains(operation.permission)
                    let acme = try await admin.call(
                        operation.method, operation.path("acme"), token: token, body: operation.body?("acme"),
                        contentType: operation.method == .POST ? "application/json" : "application/merge-patch+json")
                    #expect(
                        allowed ? (200..<300).contains(acme.status) : acme.status == 403,
                        "\(name) \(operation.permission) on acme: \(acme.status) \(acme.json)")
                    if !allowed {
                        #expect(acme.json["code"] as? String == "forbidden")
                        #expect(acme.json["missingPermission"] as? String == operation.permission.description)
                    }
                    // Another tenant: where the operator holds nothing it does not exist.
                    let beta = try await admin.call(
                        operation.method, operation.path("beta"), token: token, body: operation.body?("beta"),
                        contentType: operation.method == .POST ? "application/json" : "application/merge-patch+json")
                    #expect(
                        role == .platformAdmin ? (200..<300).contains(beta.status) : beta.status == 404,
                        "\(name) \(operation.permission) on beta: \(beta.status)")
                }
                // Platform-wide: creating a tenant.
                let create = try await admin.call(
                    .POST, "/admin/v1/tenants", token: token, body: "{\"id\": \"new-\(name)\", \"displayName\": \"n\"}",
                    contentType: "application/json")
                let mayCreate = role.permissions.contains(AdminPermission(.create, .tenant)) && role == .platformAdmin
                #expect(create.status == (mayCreate ? 201 : 403), "\(name) tenant:create: \(create.status)")
                // Lists are filtered on the server.
                let list = try await admin.call(.GET, "/admin/v1/tenants", token: token)
                let ids = (list.json["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
                if role == .platformAdmin {
                    #expect(ids.contains("acme") && ids.contains("beta") && ids.contains("new-root") && ids == ids.sorted(), "\(name): \(ids)")
                } else {
                    #expect(ids == ["acme"], "\(name): \(ids)")
                }
            }
            // Every refusal is in the trail, with the refused operator's roles at that moment.
            let refusals = try await admin.stores.audit.records(
                matching: AuditQuery(chain: "acme", resourceType: .tenant, verb: .update, limit: 100)
            ).items.filter { $0.outcome.status == 403 }
            #expect(Set(refusals.map(\.actor.name)) == ["acme-releaser", "acme-sender", "acme-auditor", "acme-viewer"])
            #expect(refusals.first { $0.actor.name == "acme-viewer" }?.actor.roles == ["viewer@acme"])
            #expect(refusals.allSatisfy { $0.actor.auth?.method == "client_secret" && $0.actor.address != nil })
            for chain in try await admin.stores.audit.chainNames() {
                #expect(try await AuditVerifier.verify(admin.stores.audit, chain: chain).broken == nil)
            }
            // Metrics: requests by the contract's route template, refusals by role and permission.
            let exposition = admin.metrics.exposition()
            #expect(exposition.contains(#"route="/admin/v1/tenants/{tenant}/users/{username}/actions""#))
            #expect(exposition.contains(#"gateway_admin_refusals_total{roles="viewer",permission="tenant:update"} 1"#), "\(exposition)")
            #expect(!exposition.contains("bob") && !exposition.contains(#"route="other""#))
        }
    }

    @Test(arguments: DatabaseBackend.available)
    func ifMatchRaceLosesNothing(backend: DatabaseBackend) async throws {
        try await Self.withAdmin(backend: backend) { admin in
            let read = try await admin.call(.GET, "/admin/v1/tenants/acme", token: admin.tokens["root"])
            let etag = try #require(read.headers["ETag"].first)
            async let first = admin.call(
                .PATCH, "/admin/v1/tenants/acme", token: admin.tokens["root"], body: #"{"displayName": "First"}"#,
                headers: [("If-Match", etag)])
            async let second = admin.call(
                .PATCH, "/admin/v1/tenants/acme", token: admin.tokens["acme-admin"], body: #"{"displayName": "Second"}"#,
                headers: [("If-Match", etag)])
            let replies = try await [first, second]
            #expect(replies.map(\.status).sorted() == [200, 412], "\(replies.map(\.json))")
            let lost = try #require(replies.first { $0.status == 412 })
            #expect(lost.json["code"] as? String == "precondition_failed")
            let won = try #require(replies.first { $0.status == 200 })
            #expect(lost.headers["ETag"].first == won.headers["ETag"].first)
            let stored = try #require(try await admin.stores.tenants.tenant(id: "acme"))
            #expect(stored.displayName == won.json["displayName"] as? String)
            // Both audited: the change with its revisions, the refusal with the revision it met.
            let records = try await admin.stores.audit.records(
                matching: AuditQuery(chain: "acme", resourceType: .tenant, limit: 10)
            ).items.filter { $0.verb != .create }
            #expect(records.map(\.outcome.status).sorted() == [200, 412])
            let change = try #require(records.first { $0.outcome.status == 200 })
            #expect(change.resource.revisionAfter == (change.resource.revisionBefore ?? 0) + 1)
            #expect(change.change?.after == .object(["displayName": .string(stored.displayName)]))

            // Bad input writes nothing: unknown fields, a stale or malformed If-Match, too long a name.
            let before = try #require(try await admin.stores.tenants.tenant(id: "acme")).configVersion
            for (body, headers, status) in [
                (#"{"displayName": "X", "status": "suspended"}"#, [(String, String)](), 400),
                (#"{}"#, [], 400),
                (#"{"displayName": "X"}"#, [("If-Match", "\"1\"")], 412),
                (#"{"displayName": "X"}"#, [("If-Match", "17")], 400),
                ("{\"displayName\": \"\(String(repeating: "x", count: 201))\"}", [], 400),
            ] {
                let refused = try await admin.call(
                    .PATCH, "/admin/v1/tenants/acme", token: admin.tokens["root"], body: body, headers: headers)
                #expect(refused.status == status, "\(body) \(headers): \(refused.status) \(refused.json)")
                #expect(refused.json["code"] != nil)
            }
            let huge = try await admin.call(
                .PATCH, "/admin/v1/tenants/acme", token: admin.tokens["root"],
                body: "{\"displayName\": \"\(String(repeating: "x", count: 70_000))\"}")
            #expect(huge.status == 413 && huge.json["code"] as? String == "payload_too_large")
            #expect(try await admin.stores.tenants.tenant(id: "acme")?.configVersion == before)
        }
    }
}
