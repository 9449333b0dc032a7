import Foundation
import GatewayAPI
import GatewayCore
import Testing

@Suite("Consents over HTTP: permissions of the latest manifest, 422 for bad names, the user's mini apps")
struct ConsentEndpointTests {
    @Test(
        "GET lists declared permissions unanswered; PUT stores; mayLaunch follows the required ones; lang picks reasons",
        arguments: DatabaseBackend.available)
    func readAndWrite(backend: DatabaseBackend) async throws {
        try await FakePlatform.with { fake in
            fake.seedHello()
            try await GatewayHarness.withGateway(backend: backend) { harness, client, _ in
                let id = uniqueTenantID("consent")
                try await harness.createTenant(GatewayHarness.tenant(id, on: fake))
                let path = Operations.GetMiniAppPermissions.Input.Path(tenant: id, id: "hello")

                let initial = try await client.getMiniAppPermissions(path: path).ok.body.json
                #expect(initial.versionId == "v1")
                #expect(
                    initial.items.map(\.name) == ["rakuten.miniapp.user.USER_NAME", "rakuten.miniapp.device.LOCATION"])
                #expect(initial.items.map(\.required) == [true, false])
                #expect(initial.items.allSatisfy { $0.status == nil })
                #expect(initial.items.first?.reason == "To greet you")
                #expect(initial.items.first?.title == "User Name")
                #expect(!initial.mayLaunch)

                let japanese = try await client.getMiniAppPermissions(path: path, query: .init(lang: "ja")).ok.body.json
                #expect(japanese.items.first?.reason == "挨拶のため")

                let changed = try await client.putMiniAppPermissions(
                    path: .init(tenant: id, id: "hello"),
                    body: permissionUpdate([
                        ("rakuten.miniapp.user.USER_NAME", .allowed), ("rakuten.miniapp.device.LOCATION", .denied),
                    ])
                ).ok.body.json
                #expect(changed.mayLaunch)
                #expect(changed.items.map(\.status) == [.allowed, .denied])
                #expect(changed.consentVersion > initial.consentVersion)

                let reread = try await client.getMiniAppPermissions(path: path).ok.body.json
                #expect(reread.items.map(\.status) == [.allowed, .denied])
                #expect(reread.mayLaunch)

                let mine = try await client.listUserMiniApps(path: .init(tenant: id)).ok.body.json
                #expect(mine.items.map(\.miniAppId) == ["hello"])
                #expect(mine.items.first?.mayLaunch == true)
                #expect(
                    Set(mine.items.first?.consents.map(\.name) ?? []) == [
                        "rakuten.miniapp.user.USER_NAME", "rakuten.miniapp.device.LOCATION",
                    ])

                // One entry of the list by id; a mini app the user never used is 404 miniapp_not_used.
                let one = try await client.getUserMiniApp(path: .init(tenant: id, id: "hello")).ok.body.json
                #expect(one == mine.items.first)
                let unused = try await client.getUserMiniApp(path: .init(tenant: id, id: "weather")).notFound.body
                    .applicationProblemJson
                #expect(unused.code == "miniapp_not_used")
            }
        }
    }

    @Test("gateway.user.NOTIFICATIONS is asked, stored and withdrawn like the SDK's permissions", arguments: DatabaseBackend.available)
    func notificationsConsent(backend: DatabaseBackend) async throws {
        try await FakePlatform.with { fake in
            fake.seedHello()
            fake.set { state in
                state.metadata["hello/v1/"]?.optPermissions?.append(
                    .init(name: CustomPermission.notifications.rawValue, reason: "Order updates"))
            }
            try await GatewayHarness.withGateway(backend: backend) { harness, client, _ in
                let id = uniqueTenantID("notify")
                try await harness.createTenant(GatewayHarness.tenant(id, on: fake))
                let path = Operations.GetMiniAppPermissions.Input.Path(tenant: id, id: "hello")
                let asked = try await client.getMiniAppPermissions(path: path).ok.body.json.items
                    .first { $0.name == "gateway.user.NOTIFICATIONS" }
                #expect(asked?.title == "Notifications" && asked?.required == false && asked?.reason == "Order updates")
                for status in [Components.Schemas.ConsentStatus.allowed, .denied] {
                    let stored = try await client.putMiniAppPermissions(
                        path: .init(tenant: id, id: "hello"),
                        body: permissionUpdate([("gateway.user.NOTIFICATIONS", status)])
                    ).ok.body.json.items.first { $0.name == "gateway.user.NOTIFICATIONS" }
                    #expect(stored?.status == status)
                }
            }
        }
    }

    @Test("unknown and undeclared names: 422 listing both, nothing stored")
    func refusesBadNames() async throws {
        try await FakePlatform.with { fake in
            fake.seedHello()
            try await GatewayHarness.withGateway { harness, client, _ in
                let id = uniqueTenantID("consent")
                try await harness.createTenant(GatewayHarness.tenant(id, on: fake))
                let out = try await client.putMiniAppPermissions(
                    path: .init(tenant: id, id: "hello"),
                    body: permissionUpdate([
                        ("rakuten.miniapp.user.USER_NAME", .allowed), ("made.up.PERMISSION", .allowed),
                        ("rakuten.miniapp.user.POINTS", .allowed),
                    ])
                )
                let problem = try out.unprocessableContent.body.applicationProblemJson
                #expect(problem.code == "invalid_permissions")
                #expect(problem.unknownPermissions == ["made.up.PERMISSION"])
                #expect(problem.undeclaredPermissions == ["rakuten.miniapp.user.POINTS"])
                let after = try await client.getMiniAppPermissions(path: .init(tenant: id, id: "hello")).ok.body.json
                #expect(after.items.allSatisfy { $0.status == nil })
                #expect(after.consentVersion == 0)
                #expect(try await client.listUserMiniApps(path: .init(tenant: id)).ok.body.json.items.isEmpty)
            }
        }
    }

    @Test("user B never sees user A's consents; a tenant-A token on a tenant-B path is refused")
    func isolation() async throws {
        try await FakePlatform.with { fake in
            fake.seedHello()
            try await GatewayHarness.withGateway { harness, client, port in
                let a = uniqueTenantID("consent-a")
                let b = uniqueTenantID("consent-b")
                try await harness.createTenant(GatewayHarness.tenant(a, on: fake))
                try await harness.createTenant(GatewayHarness.tenant(b, on: fake))
                _ = try await client.putMiniAppPermissions(
                    path: .init(tenant: a, id: "hello"),
                    body: permissionUpdate([("rakuten.miniapp.user.USER_NAME", .allowed)])
                ).ok

                let bob = try await harness.secondUser(tenant: a, client: client, port: port)
                let seen = try await bob.client.getMiniAppPermissions(path: .init(tenant: a, id: "hello")).ok.body.json
                #expect(seen.items.allSatisfy { $0.status == nil })
                #expect(try await bob.client.listUserMiniApps(path: .init(tenant: a)).ok.body.json.items.isEmpty)
                #expect(
                    try await bob.client.getUserMiniApp(path: .init(tenant: a, id: "hello")).notFound.body
                        .applicationProblemJson.code == "miniapp_not_used")

                // Same user of tenant B: tenant A's answers do not leak across tenants.
                let inB = try await client.getMiniAppPermissions(path: .init(tenant: b, id: "hello")).ok.body.json
                #expect(inB.items.allSatisfy { $0.status == nil })
                // A tenant-A token on a tenant-B path.
                _ = try await bob.client.getMiniAppPermissions(path: .init(tenant: b, id: "hello")).unauthorized
                _ = try await bob.client.listUserMiniApps(path: .init(tenant: b)).unauthorized
            }
        }
    }
}
