import Foundation
import GatewayAPI
import GatewayCore
import Testing

@Suite("/home fans out concurrently and answers partially", .serialized)
struct HomeTests {
    @Test("all parts present → complete")
    func complete() async throws {
        try await FakePlatform.with { fake in
            fake.seedHello()
            try await GatewayHarness.withGateway(homePartBudget: .seconds(5)) { harness, client, _ in
                let id = uniqueTenantID("home")
                try await harness.createTenant(GatewayHarness.tenant(id, on: fake))
                let home = try await client.getHome(
                    path: .init(tenant: id), headers: .init(acceptLanguage: "ja-JP, en;q=0.5")
                ).ok.body.json
                #expect(home.complete)
                #expect(home.missing.isEmpty)
                #expect(home.hostConfig.tenant == id)
                #expect(home.featured?.map(\.id) == ["alpha", "hello"])
                #expect(home.recent?.isEmpty == true)  // the user has used nothing yet
                // No Japanese texts exist for this tenant: negotiation falls back to English,
                // and the bundle carries the built-in SDK texts.
                let localization = try #require(home.localization)
                #expect(localization.locale == "en")
                #expect(!localization.entries.additionalProperties.isEmpty)
            }
        }
    }

    @Test("one slow part → still 200, complete: false, missing: [featured], within its deadline")
    func slowPart() async throws {
        try await FakePlatform.with { fake in
            fake.seedHello()
            fake.injectFault(.delay(.seconds(3)))
            try await GatewayHarness.withGateway { harness, client, _ in
                let id = uniqueTenantID("homeslow")
                try await harness.createTenant(GatewayHarness.tenant(id, on: fake))
                let started = ContinuousClock.now
                let home = try await client.getHome(path: .init(tenant: id)).ok.body.json
                #expect(ContinuousClock.now - started < .milliseconds(2900))  // the part's deadline (0.8 s), not the 3 s upstream
                #expect(!home.complete)
                #expect(home.missing == [.featured])
                #expect(home.featured == nil)
                #expect(home.hostConfig.tenant == id)
            }
        }
    }

    /// Issue 14, item 1: with a platform slower than the part budget (0.8 s) the answer used
    /// to wait for it (1.46 s at 0.7 s, 5.01 s at 3 s) and `featured` never warmed up.
    @Test(
        "a slow platform (0.7 s, 1 s, 3 s): /home answers by the part budget, and the cut part finishes into the cache so the next /home is complete",
        arguments: [700, 1000, 3000])
    func partsAnswerOnTimeAndWarmUp(delayMilliseconds: Int) async throws {
        try await FakePlatform.with { fake in
            fake.seedHello()
            try await GatewayHarness.withGateway { harness, client, _ in
                let id = uniqueTenantID("homewarm")
                try await harness.createTenant(GatewayHarness.tenant(id, on: fake))
                _ = try await client.putMiniAppPermissions(
                    path: .init(tenant: id, id: "hello"),
                    body: permissionUpdate([("rakuten.miniapp.user.USER_NAME", .allowed)])
                ).ok
                // Every cached answer of the tenant is gone, so the user's recent mini app needs
                // its manifest again below.
                try await harness.coldAnswers(id, round: "2")
                fake.injectFault(.delay(.milliseconds(delayMilliseconds)))
                let started = ContinuousClock.now
                let first = try await client.getHome(path: .init(tenant: id)).ok.body.json
                let elapsed = ContinuousClock.now - started
                // Part budget 0.8 s, plus scheduling slack on a busy 2-core machine.
                #expect(elapsed < .milliseconds(800 + 250), "first /home took \(elapsed)")
                // Slower than the budget: featured is cut. (Faster: it may or may not make it.)
                if delayMilliseconds >= 800 { #expect(first.missing.contains(.featured)) }
                // The cut work keeps going with the full upstream budget (5 s) and fills the cache:
                // had it been cancelled at the part budget, no /home could ever be complete.
                #expect(try await eventually(within: .seconds(8), every: .milliseconds(100)) {
                    try await client.getHome(path: .init(tenant: id)).ok.body.json.complete
                })
                let again = ContinuousClock.now
                let second = try await client.getHome(path: .init(tenant: id)).ok.body.json
                #expect(second.complete, "missing \(second.missing)")
                #expect(second.featured?.map(\.id) == ["alpha", "hello"])
                #expect(second.recent?.first?.mayLaunch == true)
                #expect(ContinuousClock.now - again < .milliseconds(800 + 250))
            }
        }
    }

    @Test("recent: the user's mini apps, most recent first, with mayLaunch; another user sees none")
    func recentMiniApps() async throws {
        try await FakePlatform.with { fake in
            fake.seedHello()
            try await GatewayHarness.withGateway(homePartBudget: .seconds(5)) { harness, client, port in
                let id = uniqueTenantID("homerecent")
                try await harness.createTenant(GatewayHarness.tenant(id, on: fake))
                _ = try await client.putMiniAppPermissions(
                    path: .init(tenant: id, id: "hello"),
                    body: permissionUpdate([("rakuten.miniapp.user.USER_NAME", .allowed)])
                ).ok
                let home = try await client.getHome(path: .init(tenant: id)).ok.body.json
                #expect(home.complete)
                let recent = try #require(home.recent)
                #expect(recent.map(\.miniAppId) == ["hello"])
                #expect(recent.first?.mayLaunch == true)
                #expect(recent.first?.consents.map(\.name) == ["rakuten.miniapp.user.USER_NAME"])
                let bob = try await harness.secondUser(tenant: id, client: client, port: port)
                #expect(try await bob.client.getHome(path: .init(tenant: id)).ok.body.json.recent?.isEmpty == true)
            }
        }
    }

    /// Issue 14, item 7: cold, `recent` needed two dependent rounds (latest version, then manifest).
    @Test(
        "a remembered latest version makes a cold /home's recent part one upstream round (manifest asked alongside the version check); an updated app still gets its new manifest"
    )
    func coldRecentInOneRound() async throws {
        try await FakePlatform.with { fake in
            fake.seedHello()
            try await GatewayHarness.withGateway(homePartBudget: .seconds(5)) { harness, client, _ in
                let id = uniqueTenantID("homeround")
                try await harness.createTenant(GatewayHarness.tenant(id, on: fake))
                _ = try await client.putMiniAppPermissions(
                    path: .init(tenant: id, id: "hello"),
                    body: permissionUpdate([("rakuten.miniapp.user.USER_NAME", .allowed)])
                ).ok
                // Every cached answer goes cold; the hint survives it.
                try await harness.coldAnswers(id, round: "2")
                fake.set { $0.requests = [] }
                fake.injectFault(.delay(.milliseconds(300)))
                let home = try await client.getHome(path: .init(tenant: id)).ok.body.json
                #expect(home.recent?.first?.mayLaunch == true)
                let requests = fake.requests
                let info = try #require(requests.first { $0.query["miniAppId"] == "hello" })
                let metadata = try #require(requests.first { $0.path.hasSuffix("/miniapp/hello/version/v1/metadata") })
                // Concurrent, not one after the other (each answer takes 300 ms).
                #expect(
                    abs((metadata.at - info.at) / .milliseconds(1)) < 150,
                    "info at \(info.at), metadata at \(metadata.at)")

                // The app moves to v2: the hinted v1 manifest is not used.
                fake.injectFault(nil)
                fake.set { state in
                    state.apps[0].version = .init(versionTag: "2.0.0", versionId: "v2")
                    state.metadata["hello/v2/"] = PlatformMetadata(
                        reqPermissions: [.init(name: "rakuten.miniapp.user.USER_NAME", reason: "Still greeting")],
                        optPermissions: [.init(name: "rakuten.miniapp.user.PROFILE_PHOTO", reason: "New in v2")])
                }
                try await harness.coldAnswers(id, round: "3")
                let updated = try await client.getMiniAppPermissions(path: .init(tenant: id, id: "hello")).ok.body.json
                #expect(updated.versionId == "v2")
                #expect(updated.items.contains { $0.name == "rakuten.miniapp.user.PROFILE_PHOTO" })
            }
        }
    }
}
