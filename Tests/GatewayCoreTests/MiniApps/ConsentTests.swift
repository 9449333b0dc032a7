import Foundation
import Testing
@testable import GatewayCore

@Suite struct ConsentTests {
    let manifest = UserStateFixture.manifest
    let alice = UserMiniAppKey(tenantID: "acme", userID: "alice", miniAppID: "app-1")

    @Test func catalogueHasTheSDKsEightAndTheGatewaysNotifications() {
        #expect(CustomPermission.allCases.count == 9)
        #expect(CustomPermission.allCases.filter { $0.rawValue.hasPrefix("rakuten.miniapp.") }.count == 8)
        #expect(CustomPermission(rawValue: "gateway.user.NOTIFICATIONS") == .notifications)
        #expect(CustomPermission(rawValue: "rakuten.miniapp.user.action.SEND_MESSAGE") == .sendMessage)
        #expect(CustomPermission.points.title == "Rakuten Points")
        #expect(CustomPermission.allCases.allSatisfy { !$0.summary.isEmpty })
    }

    @Test(arguments: StoreBackend.available) func updateStoresAndComputesMayLaunch(backend: StoreBackend) async throws {
        let fx = try await UserStateFixture(backend)
        defer { fx.remove() }
        let service = ConsentService(store: fx.stores.consents, tokens: nil)
        let empty = try await service.view(alice, manifest: manifest)
        #expect(!empty.mayLaunch)
        #expect(empty.items.map(\.name) == [CustomPermission.userName, .accessToken, .location].map(\.rawValue))
        #expect(empty.items.first?.reason == "To greet you")
        #expect(empty.items.first?.title == "User Name")
        let view = try await service.update(alice, manifest: manifest, changes: [
            CustomPermission.userName.rawValue: .allowed, CustomPermission.location.rawValue: .denied,
        ])
        #expect(view.mayLaunch)
        #expect(view.consentVersion == 1)
        #expect(view.items.first { $0.name == CustomPermission.location.rawValue }?.status == .denied)
        let denied = try await service.update(
            alice, manifest: manifest, changes: [CustomPermission.userName.rawValue: .denied])
        #expect(!denied.mayLaunch)
        #expect(denied.consentVersion == 2)
        // Same answers again: nothing changes, version stays.
        #expect(
            try await service.update(alice, manifest: manifest, changes: [CustomPermission.userName.rawValue: .denied])
                .consentVersion == 2)
    }

    @Test(arguments: StoreBackend.available) func unknownAndUndeclaredNamesAreRefusedAndNothingIsStored(
        backend: StoreBackend
    ) async throws {
        let fx = try await UserStateFixture(backend)
        defer { fx.remove() }
        let store = fx.stores.consents
        let service = ConsentService(store: store, tokens: nil)
        let changes: [String: ConsentStatus] = [
            CustomPermission.userName.rawValue: .allowed,
            "rakuten.miniapp.user.SHOE_SIZE": .allowed,
            CustomPermission.points.rawValue: .allowed,
        ]
        await #expect(
            throws: ConsentError.invalidPermissions(
                unknown: ["rakuten.miniapp.user.SHOE_SIZE"], undeclared: [CustomPermission.points.rawValue])
        ) {
            try await service.update(alice, manifest: manifest, changes: changes)
        }
        let stored = try await store.consents(of: alice)
        #expect(stored.records.isEmpty)
        #expect(stored.version == 0)
    }

    @Test(arguments: StoreBackend.available) func usersAndTenantsAreIsolatedAndListed(
        backend: StoreBackend
    ) async throws {
        let fx = try await UserStateFixture(backend)
        defer { fx.remove() }
        let store = fx.stores.consents
        try await store.setConsents([CustomPermission.userName.rawValue: .allowed], for: alice)
        try await store.setConsents(
            [CustomPermission.location.rawValue: .denied],
            for: UserMiniAppKey(tenantID: "acme", userID: "alice", miniAppID: "app-2"))
        let bob = UserMiniAppKey(tenantID: "acme", userID: "bob", miniAppID: "app-1")
        let betaAlice = UserMiniAppKey(tenantID: "beta", userID: "alice", miniAppID: "app-1")
        #expect(try await store.consents(of: bob).records.isEmpty)
        #expect(try await store.consents(of: betaAlice).records.isEmpty)
        #expect(try await store.userMiniApps(tenantID: "acme", userID: "bob").isEmpty)
        #expect(try await store.userMiniApps(tenantID: "beta", userID: "alice").isEmpty)
        let apps = try await store.userMiniApps(tenantID: "acme", userID: "alice")
        #expect(Set(apps.map(\.miniAppID)) == ["app-1", "app-2"])
        // Storage alone also lists the mini app.
        try await fx.stores.storage.put(
            ["k": "v"], for: UserMiniAppKey(tenantID: "acme", userID: "bob", miniAppID: "app-9"), maxBytes: 100)
        #expect(try await store.userMiniApps(tenantID: "acme", userID: "bob").map(\.miniAppID) == ["app-9"])
        let service = ConsentService(store: store, tokens: nil)
        let entries = try await service.userMiniApps(tenantID: "acme", userID: "alice") {
            $0 == "app-1" ? manifest : nil
        }
        #expect(entries.first { $0.consents.miniAppID == "app-1" }?.view?.mayLaunch == true)
        #expect(entries.first { $0.consents.miniAppID == "app-2" }?.view == nil)
        // A limit keeps the most recently used ones (app-1 touched after app-2).
        try await store.touch(alice)
        #expect(try await store.userMiniApps(tenantID: "acme", userID: "alice", limit: 1).map(\.miniAppID) == ["app-1"])
        #expect(
            try await service.userMiniApps(tenantID: "acme", userID: "alice", limit: 2) { _ in nil }.map(
                \.consents.miniAppID) == ["app-1", "app-2"])
    }
}
