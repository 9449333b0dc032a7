import AsyncHTTPClient
import Foundation
import GatewayAPI
import GatewayCore
import NIOCore
import Testing

/// Issue 29: every answer that names a version follows the tenant's release policy, written
/// by an operator (another store on the same database) and reaching the gateway through the
/// change feed; withdrawn versions answer 410 `version_withdrawn`.
@Suite("Staged releases on the wire: versions per user, segments, withdraw")
struct StagedReleaseEndpointTests {
    /// hello: the platform's latest is v1; v2 is published but not latest (the candidate).
    static func seed(_ fake: FakePlatform) {
        fake.seedHello()
        fake.set { state in
            state.metadata["hello/v2/"] = PlatformMetadata(
                reqPermissions: [], optPermissions: [.init(name: "rakuten.miniapp.device.LOCATION", reason: "v2")],
                accessTokenPermissions: [], customMetaData: ["build": "v2"])
            state.fileManifests["hello/v2"] = PlatformFileManifest(
                files: ["\(fake.baseURL)/files/hello-v2.zip"], publicKeyID: nil, signature: nil)
        }
    }

    /// The `sub` of a JWT access token.
    static func subject(of token: String) throws -> String {
        var payload = String(token.split(separator: ".")[1])
            .replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while payload.count % 4 != 0 { payload += "=" }
        let claims = try JSONDecoder().decode([String: JSONValue].self, from: Data(base64Encoded: payload)!)
        guard case .string(let subject)? = claims["sub"] else { throw CancellationError() }
        return subject
    }

    /// Creates `tenant` and signs its test user in: that user's bearer token and subject.
    static func signedIn(_ harness: GatewayHarness, _ tenant: Tenant) async throws -> (token: String, user: String) {
        try await harness.createTenant(tenant)
        let token = try await harness.users.accessToken(tenant: tenant.id)
        return (token, try subject(of: token))
    }

    /// Stores a policy change as an operator does and waits until the gateway has it.
    static func release(
        _ harness: GatewayHarness, tenant: String, _ action: (ReleaseService, ReleaseService.Target) async throws
            -> ReleasePolicy
    ) async throws {
        let service = ReleaseService(store: harness.operatorStores.releases)
        let stored = try await action(service, .init(tenantID: tenant, miniAppID: "hello", actor: "test"))
        let table = harness.bootstrap.services.releases.table
        let seen = await eventually(within: .seconds(10)) {
            table.policy(tenantID: tenant, miniAppID: "hello")?.revision == stored.revision
        }
        #expect(seen, "policy revision \(stored.revision) not loaded")
    }

    struct Reply {
        var status: Int
        var json: [String: JSONValue]
        var list: [JSONValue]
    }

    static func get(_ url: String, token: String?, headers: [(String, String)] = []) async throws -> Reply {
        var request = HTTPClientRequest(url: url)
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await TestHTTP.noRedirects.execute(request, timeout: .seconds(10))
        let body = Data(buffer: try await response.body.collect(upTo: 1 << 20))
        let value = try JSONDecoder().decode(JSONValue.self, from: body)
        var reply = Reply(status: Int(response.status.code), json: [:], list: [])
        switch value {
        case .object(let object): reply.json = object
        case .array(let array): reply.list = array
        default: break
        }
        return reply
    }

    /// A GET's body as text.
    static func text(_ url: String) async throws -> String {
        let response = try await TestHTTP.noRedirects.execute(HTTPClientRequest(url: url), timeout: .seconds(10))
        return String(buffer: try await response.body.collect(upTo: 8 << 20))
    }

    static func versionID(_ app: [String: JSONValue]) -> String? {
        guard case .object(let version)? = app["version"], case .string(let id)? = version["versionId"] else {
            return nil
        }
        return id
    }

    @Test("a cohort user gets the candidate in info, list and home; others stable; a withdrawn version is 410")
    func versionsPerUserAndWithdraw() async throws {
        try await FakePlatform.with { fake in
            Self.seed(fake)
            try await GatewayHarness.withGateway(homePartBudget: .seconds(5)) { harness, client, port in
                let id = uniqueTenantID("release")
                let (token, user) = try await Self.signedIn(harness, GatewayHarness.tenant(id, on: fake))
                let base = "http://127.0.0.1:\(port)/t/\(id)/v1"
                let bob = try await harness.secondUser(tenant: id, client: client, port: port)

                // No policy: the platform's latest, as always.
                #expect(Self.versionID(try await Self.get("\(base)/miniapps/hello", token: token).json) == "v1")

                // Candidate v2 for nobody by share, but `user` is on the allow list.
                try await Self.release(harness, tenant: id) { service, target in
                    try await service.set(target) { policy in
                        policy.candidate = ReleaseCandidate(
                            version: "v2", percent: RolloutPercent(basisPoints: 0)!, allowUsers: [user])
                    }
                }
                let info = try await Self.get("\(base)/miniapps/hello", token: token)
                #expect(Self.versionID(info.json) == "v2")
                #expect(info.json["displayName"] == .string("Hello"), "the rest of the answer is the platform's")
                let typed = try await client.getMiniApp(path: .init(tenant: id, id: "hello")).ok.body.json
                #expect(typed.version.versionId == "v2" && typed.version.versionTag == "v2")
                let bobs = try await bob.client.getMiniApp(path: .init(tenant: id, id: "hello")).ok.body.json
                #expect(bobs.version.versionId == "v1" && bobs.version.versionTag == "1.0.0")

                let list = try await client.listMiniApps(path: .init(tenant: id)).ok.body.json.items
                #expect(list.first { $0.id == "hello" }?.version.versionId == "v2")
                #expect(list.first { $0.id == "alpha" }?.version.versionId == "a2", "apps without a policy unchanged")
                let bobList = try await bob.client.listMiniApps(path: .init(tenant: id)).ok.body.json.items
                #expect(bobList.first { $0.id == "hello" }?.version.versionId == "v1")
                let featured = try await client.getHome(path: .init(tenant: id)).ok.body.json.featured ?? []
                #expect(featured.first { $0.id == "hello" }?.version.versionId == "v2")

                // The user's consents are read against the version the user gets.
                let permissions = try await client.getMiniAppPermissions(path: .init(tenant: id, id: "hello")).ok
                    .body.json
                #expect(permissions.versionId == "v2")

                // Withdraw v2 in favour of v1: its manifest and bundle are 410, naming v1; nobody is offered it.
                try await Self.release(harness, tenant: id) { service, target in
                    try await service.withdraw(target, version: "v2", useInstead: "v1")
                }
                for path in ["manifest", "bundle"] {
                    let refused = try await Self.get("\(base)/miniapps/hello/versions/v2/\(path)", token: token)
                    #expect(refused.status == 410)
                    #expect(refused.json["code"] == .string("version_withdrawn"))
                    #expect(refused.json["versionId"] == .string("v2") && refused.json["useInstead"] == .string("v1"))
                }
                if case .gone(let gone) = try await client.getMiniAppManifest(
                    path: .init(tenant: id, id: "hello", versionId: "v2"))
                {
                    #expect(try gone.body.applicationProblemJson.code == "version_withdrawn")
                } else {
                    Issue.record("the generated client does not read 410 as documented")
                }
                #expect(Self.versionID(try await Self.get("\(base)/miniapps/hello", token: token).json) == "v1")
                #expect(try await Self.get("\(base)/miniapps/hello/versions/v1/manifest", token: token).status == 200)

                // Withdraw v1 too, with nothing instead: no version to offer.
                _ = try await client.putMiniAppPermissions(
                    path: .init(tenant: id, id: "hello"),
                    body: permissionUpdate([("rakuten.miniapp.user.USER_NAME", .allowed)])
                ).ok
                try await Self.release(harness, tenant: id) { service, target in
                    try await service.withdraw(target, version: "v1", useInstead: nil)
                }
                let gone = try await Self.get("\(base)/miniapps/hello", token: token)
                #expect(gone.status == 410 && gone.json["useInstead"] == .null)
                let afterList = try await client.listMiniApps(path: .init(tenant: id)).ok.body.json.items
                #expect(afterList.map(\.id) == ["alpha"], "an app with no version to offer is not listed")
                let home = try await client.getHome(path: .init(tenant: id)).ok.body.json
                #expect(home.recent?.first { $0.miniAppId == "hello" }?.mayLaunch == false)
                let mine = try await client.listUserMiniApps(path: .init(tenant: id)).ok.body.json.items
                #expect(mine.first { $0.miniAppId == "hello" }?.mayLaunch == false)
            }
        }
    }

    @Test("a platform segment: android gets the candidate at 100 %, iOS and a client that does not say stay on stable")
    func platformSegment() async throws {
        try await FakePlatform.with { fake in
            Self.seed(fake)
            try await GatewayHarness.withGateway { harness, _, port in
                let id = uniqueTenantID("release")
                let (token, _) = try await Self.signedIn(harness, GatewayHarness.tenant(id, on: fake))
                try await Self.release(harness, tenant: id) { service, target in
                    try await service.set(target) { policy in
                        policy.stable = "v1"
                        policy.candidate = ReleaseCandidate(
                            version: "v2", percent: RolloutPercent(basisPoints: 10_000)!,
                            segment: ReleaseSegment(hostVersions: HostVersionRange(">=2.4 <3"), platforms: [.android]))
                    }
                }
                let url = "http://127.0.0.1:\(port)/t/\(id)/v1/miniapps/hello"
                func version(_ headers: [(String, String)], token: String? = token) async throws -> String? {
                    Self.versionID(try await Self.get(url, token: token, headers: headers).json)
                }
                #expect(try await version([("X-Host-Platform", "Android"), ("X-Host-App-Version", "2.5.1")]) == "v2")
                #expect(try await version([("X-Host-Platform", "ios"), ("X-Host-App-Version", "2.5.1")]) == "v1")
                #expect(try await version([("X-Host-Platform", "android"), ("X-Host-App-Version", "3.0")]) == "v1")
                #expect(try await version([("X-Host-Platform", "android")]) == "v1", "no host version: outside")
                #expect(try await version([("X-Host-Platform", "symbian"), ("X-Host-App-Version", "2.5")]) == "v1")
                #expect(try await version([("X-Host-App-Version", "not a version")]) == "v1")
            }
        }
    }

    @Test("the Rakuten SDK's sequence sees the candidate with a cohort user's token and stable without; 410 when withdrawn")
    func rasSequence() async throws {
        try await FakePlatform.with { fake in
            Self.seed(fake)
            try await GatewayHarness.withGateway { harness, _, port in
                let id = uniqueTenantID("release")
                let (token, user) = try await Self.signedIn(harness, RASCompatibilityTests.tenant(id, on: fake))
                try await Self.release(harness, tenant: id) { service, target in
                    try await service.set(target) { policy in
                        policy.candidate = ReleaseCandidate(
                            version: "v2", percent: RolloutPercent(basisPoints: 0)!, allowUsers: [user])
                    }
                }
                let base = "http://127.0.0.1:\(port)/t/\(id)/ras/host/\(fake.projectID)"
                let bearer = [("Authorization", "Bearer \(token)")]
                typealias Info = RASCompatibilityTests.MiniAppInfo
                func versions(_ answer: RASCompatibilityTests.Answer) throws -> [String: String] {
                    Dictionary(uniqueKeysWithValues: try answer.decode([Info].self).map { ($0.id, $0.version.versionId) })
                }
                let cohortList = try await RASCompatibilityTests.sdkGET("\(base)/miniapps", extra: bearer)
                #expect(try versions(cohortList) == ["hello": "v2", "alpha": "a2"])
                #expect(try versions(try await RASCompatibilityTests.sdkGET("\(base)/miniapps"))["hello"] == "v1")
                let cohortInfo = try await RASCompatibilityTests.sdkGET("\(base)/miniapps?miniAppId=hello", extra: bearer)
                #expect(try versions(cohortInfo) == ["hello": "v2"])
                let metadata = try await RASCompatibilityTests.sdkGET(
                    "\(base)/miniapp/hello/version/v2/metadata", extra: bearer)
                #expect(try metadata.decode(RASCompatibilityTests.MetaDataResponse.self).bundleManifest
                    .customMetaData?["build"] == "v2")
                #expect(try await RASCompatibilityTests.sdkGET("\(base)/miniapp/hello/version/v2/manifest").status == 200)

                try await Self.release(harness, tenant: id) { service, target in
                    try await service.withdraw(target, version: "v2", useInstead: "v1")
                }
                let refused = try await RASCompatibilityTests.sdkGET("\(base)/miniapp/hello/version/v2/manifest")
                #expect(refused.status == 410)
                let error = try refused.decode(RASCompatibilityTests.ErrorData.self)
                #expect(error.code == 410 && error.message.contains("v1"))
                #expect(try versions(try await RASCompatibilityTests.sdkGET("\(base)/miniapps", extra: bearer))["hello"] == "v1")
            }
        }
    }

    /// The value of the sample of `name` whose labels include every one of `labels`.
    static func sample(_ name: String, _ labels: [String], in exposition: String) -> Double? {
        exposition.split(separator: "\n").first { line in
            line.hasPrefix(name + "{") && labels.allSatisfy { line.contains($0) }
        }.flatMap { Double($0.split(separator: " ").last ?? "") }
    }

    @Test("metrics count the versions served under a policy and report each rollout's share and state")
    func releaseMetrics() async throws {
        try await FakePlatform.with { fake in
            Self.seed(fake)
            try await GatewayHarness.withGateway { harness, client, port in
                let id = uniqueTenantID("relmetrics")
                let (token, user) = try await Self.signedIn(harness, GatewayHarness.tenant(id, on: fake))
                let bob = try await harness.secondUser(tenant: id, client: client, port: port)
                let base = "http://127.0.0.1:\(port)/t/\(id)/v1"
                try await Self.release(harness, tenant: id) { service, target in
                    try await service.set(target) { policy in
                        policy.candidate = ReleaseCandidate(
                            version: "v2", percent: RolloutPercent("12.5")!, allowUsers: [user])
                    }
                }
                for _ in 0..<3 { _ = try await Self.get("\(base)/miniapps/hello", token: token) }
                _ = try await bob.client.getMiniApp(path: .init(tenant: id, id: "hello")).ok
                let tenant = "tenant=\"\(id)\"", app = "mini_app=\"hello\""
                var text = try await Self.text("http://127.0.0.1:\(port)/metrics")
                // Bob is in the 12.5 % or not (his hash decides): four answers, at least three on v2.
                let v2 = Self.sample(ReleaseMetrics.servedLabel, [tenant, app, "version=\"v2\""], in: text) ?? 0
                let v1 = Self.sample(ReleaseMetrics.servedLabel, [tenant, app, "version=\"v1\""], in: text) ?? 0
                #expect(v2 >= 3 && v1 + v2 == 4)
                #expect(Self.sample(ReleaseMetrics.shareLabel, [tenant, app], in: text) == 12.5)
                #expect(Self.sample(ReleaseMetrics.stateLabel, [tenant, app, "state=\"active\""], in: text) == 1)
                #expect(Self.sample(ReleaseMetrics.stateLabel, [tenant, app, "state=\"halted\""], in: text) == 0)

                try await Self.release(harness, tenant: id) { service, target in try await service.halt(target) }
                text = try await Self.text("http://127.0.0.1:\(port)/metrics")
                #expect(Self.sample(ReleaseMetrics.shareLabel, [tenant, app], in: text) == 0)
                #expect(Self.sample(ReleaseMetrics.stateLabel, [tenant, app, "state=\"halted\""], in: text) == 1)
                #expect(Self.sample(ReleaseMetrics.stateLabel, [tenant, app, "state=\"active\""], in: text) == 0)
            }
        }
    }
}
