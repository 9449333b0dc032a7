import Foundation
import GatewayCore
import Testing

@testable import GatewayServer

/// The operator console in a real browser (issue 49): Debian's `chromium` through
/// `chromium-driver` and Selenium (`Tests/Interop/console_browser.py`), against a live gateway
/// with its admin listener on the gateway's own stores and cache, a fake mini-app platform and
/// a fake FCM. The script signs in, raises a rollout, reports failures through attributable
/// opens and reads them on the chart, rolls back, sends a notification and watches its funnel
/// reach "accepted", checks a viewer and two racing operators, reads the audit page, and
/// checks every page it visits for labels, text alternatives and no sideways scrolling.
@Suite("Operator console in headless Chromium (Selenium)")
struct ConsoleBrowserTests {
    static var available: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium") && PythonScript.canImport("selenium")
    }

    @Test(.enabled(if: available, "chromium, chromium-driver or selenium is not installed (make test installs them)"))
    func driveTheConsole() async throws {
        try await FakePlatform.with { platform in
            StagedReleaseEndpointTests.seed(platform)
            try await FakeFCM.with { fcm in
                try await GatewayHarness.withGateway(push: PushEndpoints(fcm: fcm.baseURL)) { harness, _, port in
                    let setup = try await Self.scene(harness, platform: platform, fcm: fcm, port: port)
                    try await AdminAPITests.withAdminListener(
                        stores: harness.bootstrap.stores, cache: harness.bootstrap.services.cache
                    ) { adminPort, _ in
                        var config = setup
                        config["admin"] = .string("http://127.0.0.1:\(adminPort)")
                        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
                            "console-browser-\(UUID().uuidString).json")
                        try JSONValue.object(config).encoded().write(to: file)
                        defer { try? FileManager.default.removeItem(at: file) }
                        let (status, output) = try await PythonScript.run(
                            "console_browser.py", [file.path, RepositoryFile.url(".build/screenshots").path])
                        #expect(status == 0, "\(output)")
                        for step in [
                            "signed in", "traffic figures", "share raised", "public read path", "chart shows failures", "rolled back",
                            "funnel accepted", "viewer sees no action", "forged post refused", "conflict shown",
                            "audit page", "accessibility",
                        ] {
                            #expect(output.contains("ok \(step)"), "missing step \(step): \(output)")
                        }
                    }
                    // What the browser did is what the stores hold, under the right operators.
                    let tenant = setup["tenant"]?.stringValue ?? ""
                    let records = try await harness.bootstrap.stores.audit.records(
                        matching: AuditQuery(chain: tenant, limit: 200)
                    ).items
                    #expect(records.contains { $0.actor.name == "vic" && $0.outcome.status == 403 })
                    #expect(
                        records.contains {
                            $0.actor.name == "rel" && $0.resource.type == .release && $0.outcome.status < 300
                        })
                    #expect(records.contains { $0.actor.name == "pat" && $0.resource.type == .notification })
                    #expect(fcm.received.withLock { $0 }.contains { $0.token == "fcm-console" })
                }
            }
        }
    }

    /// A tenant on the fake platform with `hello` at v1, v2 offered to 10 %, an auto-halt rule;
    /// users on each side of the share; a user with an FCM device who allows `hello`'s
    /// notifications; operators `rel` and `rel2` (release managers), `vic` (viewer) and `pat`
    /// (push sender), `aud` (auditor). Returns the script's configuration.
    static func scene(
        _ harness: GatewayHarness, platform: FakePlatform, fcm: FakeFCM, port: Int
    ) async throws -> [String: JSONValue] {
        let id = uniqueTenantID("console")
        try await harness.createTenant(GatewayHarness.tenant(id, on: platform))
        // Buckets depend on the (random) tenant id: 150 users leave ~15 below 10 %, ~75 at 50 % and above.
        let users = try await harness.mintedUsers(tenant: id, port: port, prefix: "u", count: 150)
        let bucket = { (subject: String) in
            RolloutBucket.of(tenantID: id, miniAppID: "hello", version: "v2", userID: subject)
        }
        let candidates = users.filter { bucket($0.subject) < 1_000 }.prefix(6)
        let stables = users.filter { bucket($0.subject) >= 5_000 }.prefix(6)
        let mover = try #require(users.first { (1_000..<5_000).contains(bucket($0.subject)) })
        try #require(candidates.count >= 3 && stables.count >= 3)
        try await StagedReleaseEndpointTests.release(harness, tenant: id) { service, target in
            try await service.set(target) { policy in
                policy.stable = "v1"
                policy.candidate = ReleaseCandidate(version: "v2", percent: RolloutPercent("10")!)
                policy.autoHalt = AutoHaltRule(errorRatio: 2, minOpens: 10)
            }
        }
        let stores = harness.bootstrap.stores
        let now = Date()
        let recipient = users[0].subject
        _ = try await stores.devices.register(
            PushDevice(
                id: "dev-console", tenantID: id, userID: recipient, provider: .fcm, token: "fcm-console",
                platform: .android, createdAt: now, updatedAt: now), maxPerUser: 20)
        let owner = UserMiniAppKey(tenantID: id, userID: recipient, miniAppID: "hello")
        try await stores.consents.touch(owner)
        _ = try await stores.consents.setConsents([CustomPermission.notifications.rawValue: .allowed], for: owner)
        try await stores.pushCredentials.setCredentials(try fcm.credentials, tenantID: id, now: now)
        let roles: [(String, OperatorRole)] = [
            ("rel", .releaseManager), ("rel2", .releaseManager), ("vic", .viewer), ("pat", .pushSender),
            ("aud", .auditor), ("adm", .tenantAdmin),
        ]
        try await ConsoleTests.people(stores, roles.map { ($0.0, $0.1, id) }, password: Self.password)
        let tokens = { (list: ArraySlice<(token: String, subject: String)>) in
            JSONValue.array(list.map { .string($0.token) })
        }
        return [
            "public": .string("http://127.0.0.1:\(port)/t/\(id)/v1"), "tenant": .string(id),
            "password": .string(Self.password), "candidates": tokens(candidates), "stables": tokens(stables),
            "mover": .string(mover.token), "recipient": .string(recipient),
        ]
    }

    static let password = "correct horse battery staple"
}
